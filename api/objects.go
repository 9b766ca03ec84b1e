package api

// Model is a model object. RLM names the model behind a gateway alias
// (rlm's addition; the gateway fills it); MaxModelLen is vLLM's field,
// which the model server fills.
type Model struct {
	ID          string `json:"id"`
	Object      string `json:"object"` // "model"
	Created     int64  `json:"created"`
	OwnedBy     string `json:"owned_by"`
	MaxModelLen int    `json:"max_model_len,omitempty"`
	RLM         any    `json:"rlm,omitempty"`
}

// File is a file object.
type File struct {
	ID        string `json:"id"`
	Object    string `json:"object"` // "file"
	Bytes     int64  `json:"bytes"`
	CreatedAt int64  `json:"created_at"`
	Filename  string `json:"filename"`
	Purpose   string `json:"purpose"`
	Status    string `json:"status"`
}

// List is a list that is not paged: {"object": "list", "data": [...]}.
type List[T any] struct {
	Object string `json:"object"` // "list"
	Data   []T    `json:"data"`
}

// NewList is a list of data.
func NewList[T any](data []T) List[T] {
	if data == nil {
		data = []T{}
	}
	return List[T]{Object: "list", Data: data}
}

// Page is a page of a list, with its cursor: the ids of its first and last
// elements (null when it is empty), and whether more follow.
type Page[T any] struct {
	Object  string  `json:"object"` // "list"
	Data    []T     `json:"data"`
	FirstID *string `json:"first_id"`
	LastID  *string `json:"last_id"`
	HasMore bool    `json:"has_more"`
}

// NewPage is the page of data, whose elements have the ids ids.
func NewPage[T any](data []T, ids []string, hasMore bool) Page[T] {
	if data == nil {
		data = []T{}
	}
	p := Page[T]{Object: "list", Data: data, HasMore: hasMore}
	if len(ids) > 0 {
		p.FirstID, p.LastID = &ids[0], &ids[len(ids)-1]
	}
	return p
}

package api

import (
	"encoding/json"
	"net/http"
)

// EventStream writes a server-sent event stream: chat and completion chunks
// as bare data events ending with data: [DONE], Responses events and the
// traces API's live events as named ones, keep-alive comments between.
//
// Every write is flushed at once. The first failed write (a client that
// left) is kept: later writes do nothing and return it, so a writer can
// go on to its cleanup without checking each one.
type EventStream struct {
	w   http.ResponseWriter
	rc  *http.ResponseController
	err error
}

// NewEventStream sends the stream's headers and its 200.
func NewEventStream(w http.ResponseWriter) *EventStream {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("Connection", "keep-alive")
	h.Set("X-Accel-Buffering", "no") // nginx would buffer the stream
	w.WriteHeader(http.StatusOK)
	s := &EventStream{w: w, rc: http.NewResponseController(w)}
	s.flush()
	return s
}

// Data sends v, JSON-encoded, as a data event.
func (s *EventStream) Data(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return s.DataJSON(b)
}

// DataJSON sends JSON already encoded as a data event.
func (s *EventStream) DataJSON(b []byte) error {
	return s.write("data: ", b, "\n\n")
}

// Event sends an event named name with JSON data, as the Responses API does
// (event: response.created, data: {...}).
func (s *EventStream) Event(name string, data []byte) error {
	return s.write("event: "+name+"\ndata: ", data, "\n\n")
}

// Comment sends a comment line, which clients ignore: a keep-alive.
func (s *EventStream) Comment(text string) error {
	return s.write(": "+text, nil, "\n\n")
}

// Done ends a chat or completion stream as OpenAI's do.
func (s *EventStream) Done() error {
	return s.write("data: [DONE]", nil, "\n\n")
}

// Err is the first write that failed, nil while the client reads.
func (s *EventStream) Err() error { return s.err }

func (s *EventStream) write(head string, body []byte, tail string) error {
	if s.err != nil {
		return s.err
	}
	buf := make([]byte, 0, len(head)+len(body)+len(tail))
	buf = append(append(append(buf, head...), body...), tail...)
	if _, err := s.w.Write(buf); err != nil {
		s.err = err
		return err
	}
	return s.flush()
}

func (s *EventStream) flush() error {
	if err := s.rc.Flush(); err != nil && err != http.ErrNotSupported {
		s.err = err
	}
	return s.err
}

package fakellm

import (
	"io"
	"net"
	"sync"
)

// Silent is an upstream that accepts connections and reads what is sent,
// but never answers: a server hung after accept, for tests of liveness
// checks and timeouts.
type Silent struct {
	URL string // http://127.0.0.1:PORT

	ln    net.Listener
	mu    sync.Mutex
	conns []net.Conn
}

// NewSilent starts a silent upstream on a loopback port.
func NewSilent() (*Silent, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Silent{URL: "http://" + ln.Addr().String(), ln: ln}
	go s.accept()
	return s, nil
}

func (s *Silent) accept() {
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		s.conns = append(s.conns, c)
		s.mu.Unlock()
		go io.Copy(io.Discard, c) // read the request, never answer
	}
}

// Close stops listening and closes every connection it accepted.
func (s *Silent) Close() {
	s.ln.Close()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.conns {
		c.Close()
	}
}

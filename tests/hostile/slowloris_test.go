package hostile

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rlm-project/rlm/internal/fakellm"
)

// Issue 24, finding 7: slowloris. Connections that trickle their headers a
// byte at a time held --max-conns slots until --read-header-timeout cut
// them, and reconnected: 1,100 of them made /healthz wait 7.4 s, and one
// client could hold every slot.

// attack is a slowloris run: trickling connections from the given local
// addresses, each reconnecting when the server closes it.
type attack struct {
	target  string
	open    atomic.Int64 // connections open now
	refused atomic.Int64 // connections the server answered 429 at once
	stop    chan struct{}
	wg      sync.WaitGroup
}

// slowloris starts perAddr trickling connections from each of addrs.
func slowloris(target string, addrs []net.IP, perAddr int) *attack {
	a := &attack{target: target, stop: make(chan struct{})}
	for _, ip := range addrs {
		for range perAddr {
			a.wg.Go(func() { a.trickle(ip) })
		}
	}
	return a
}

// end stops the attack and closes its connections.
func (a *attack) end() {
	close(a.stop)
	a.wg.Wait()
}

// trickle keeps one connection from ip open, sending a header byte every
// 100 ms; a connection the server closes is opened again.
func (a *attack) trickle(ip net.IP) {
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: ip}, Timeout: 5 * time.Second}
	for {
		select {
		case <-a.stop:
			return
		default:
		}
		c, err := d.Dial("tcp", a.target)
		if err != nil {
			time.Sleep(100 * time.Millisecond)
			continue
		}
		closed := make(chan struct{})
		go func() {
			b, _ := io.ReadAll(c)
			if bytes.HasPrefix(b, []byte("HTTP/1.1 429")) {
				a.refused.Add(1)
			}
			close(closed)
		}()
		a.open.Add(1)
		fmt.Fprint(c, "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ")
		tick := time.NewTicker(100 * time.Millisecond)
	held:
		for {
			select {
			case <-a.stop:
				break held
			case <-closed:
				// A refused client comes back, though not in a busy loop
				// that would only measure the test machine's CPU.
				time.Sleep(200 * time.Millisecond)
				break held
			case <-tick.C:
				c.Write([]byte("a"))
			}
		}
		tick.Stop()
		c.Close()
		<-closed
		a.open.Add(-1)
	}
}

// probeHealth sends GET /healthz on a new connection every 100 ms for d
// and returns the latencies, sorted; a probe that fails counts as d.
func probeHealth(url string, d time.Duration) []time.Duration {
	client := &http.Client{Timeout: d + 10*time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	var lat []time.Duration
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		start := time.Now()
		resp, err := client.Get(url + "/healthz")
		if err != nil || resp.StatusCode != http.StatusOK {
			lat = append(lat, d)
			if err == nil {
				resp.Body.Close()
			}
			continue
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		lat = append(lat, time.Since(start))
	}
	slices.Sort(lat)
	return lat
}

// loopbacks returns n addresses 127.0.0.2, 127.0.0.3, ...: on Linux all of
// 127/8 is the loopback interface, so each is a client address of its own.
func loopbacks(n int) []net.IP {
	ips := make([]net.IP, n)
	for i := range ips {
		ips[i] = net.IPv4(127, 0, byte((i+2)>>8), byte((i+2)&0xff))
	}
	return ips
}

// underAttack runs a slowloris from addrs against s and returns /healthz's
// latencies, probed from 127.0.0.1 once the attack holds its connections.
func underAttack(t testing.TB, s *server, addrs []net.IP, perAddr int, probeFor time.Duration) ([]time.Duration, *attack) {
	t.Helper()
	a := slowloris(strings.TrimPrefix(s.url, "http://"), addrs, perAddr)
	defer a.end()
	for deadline := time.Now().Add(10 * time.Second); a.open.Load() < int64(len(addrs)*perAddr*9/10) && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(500 * time.Millisecond)
	lat := probeHealth(s.url, probeFor)
	s.alive(t)
	return lat, a
}

func TestSlowloris(t *testing.T) {
	up := fakellm.New(rootScript)
	defer up.Close()
	// 256 slots, and a 3 s header timeout so that a server without the
	// fix shows it within the test: /healthz then waits for a trickler to
	// be cut.
	flags := []string{"--max-conns", "256", "--read-header-timeout", "3s"}
	for _, tc := range []struct {
		name    string
		addrs   []net.IP
		perAddr int
	}{
		// One client, reconnecting: it may hold --max-conns-per-client
		// (default 128) connections; the rest are refused with 429 at once.
		{"one address", loopbacks(1), 300},
		// Many clients, each under its limit, together over --max-conns:
		// a new connection takes the place of the oldest one still
		// sending its headers.
		{"many addresses", loopbacks(100), 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := startServer(t, up.URL, flags...)
			lat, a := underAttack(t, s, tc.addrs, tc.perAddr, 3*time.Second)
			p50, worst := lat[len(lat)/2], lat[len(lat)-1]
			t.Logf("%d trickling connections from %d addresses: /healthz p50 %v, max %v over %d probes; %d attack connections refused with 429",
				len(tc.addrs)*tc.perAddr, len(tc.addrs), p50.Round(time.Millisecond), worst.Round(time.Millisecond), len(lat), a.refused.Load())
			if worst > time.Second {
				t.Errorf("/healthz took up to %v under the attack (p50 %v)", worst, p50)
			}
			if len(tc.addrs) == 1 && a.refused.Load() == 0 {
				t.Errorf("no connection of the single attacker was refused")
			}
			// After the attack, the attacker's address is served again.
			from := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
				DialContext: (&net.Dialer{LocalAddr: &net.TCPAddr{IP: tc.addrs[0]}}).DialContext}}
			if resp, err := from.Get(s.url + "/healthz"); err != nil || resp.StatusCode != http.StatusOK {
				t.Errorf("/healthz from %v after the attack: %v %v", tc.addrs[0], resp, err)
			} else {
				resp.Body.Close()
			}
		})
	}
}

// BenchmarkSlowloris is the audit's measurement at its scale: 1,100
// trickling connections against `rlm serve` with its default limits
// (--max-conns 1024, --read-header-timeout 10s), from one address and
// from 100, while /healthz is probed from another for 12 s. It reports the
// probes' latency. $RLM_HOSTILE_BINARY measures another build.
func BenchmarkSlowloris(b *testing.B) {
	up := fakellm.New(rootScript)
	defer up.Close()
	for _, tc := range []struct {
		name    string
		addrs   []net.IP
		perAddr int
	}{{"one-address", loopbacks(1), 1100}, {"100-addresses", loopbacks(100), 11}} {
		b.Run(tc.name, func(b *testing.B) {
			for range b.N {
				s := startServer(b, up.URL)
				lat, a := underAttack(b, s, tc.addrs, tc.perAddr, 12*time.Second)
				b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "healthz-p50-ms")
				b.ReportMetric(float64(lat[len(lat)-1].Microseconds())/1000, "healthz-max-ms")
				b.ReportMetric(float64(a.refused.Load()), "refused")
				s.stop(b)
			}
		})
	}
}

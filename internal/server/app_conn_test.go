package server

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Issue 14, connection hygiene: 200 slow-body and 200 idle connections
// were all still open after 30 s. A connection that sends nothing, sends
// its headers or its body too slowly, or idles after a request, is closed
// by server.readHeaderTimeoutMs, server.readTimeoutMs and
// server.idleTimeoutMs.
func TestAppClosesSlowAndIdleConnections(t *testing.T) {
	appLeakCheck(t)
	r := appStartWith(t, t.TempDir(), nil, map[string]string{"server.readHeaderTimeoutMs": "200",
		"server.readTimeoutMs": "400", "server.idleTimeoutMs": "300"})
	addr := strings.TrimPrefix(r.base, "http://")
	dial := func() net.Conn {
		c, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		t.Cleanup(func() { c.Close() })
		return c
	}
	// closedWithin reports whether the server closes c within d (a client
	// deadline far beyond the configured timeouts).
	closedWithin := func(c net.Conn, br *bufio.Reader, d time.Duration) bool {
		require.NoError(t, c.SetReadDeadline(time.Now().Add(d)))
		_, err := io.Copy(io.Discard, br)
		var ne net.Error
		return !(errors.As(err, &ne) && ne.Timeout())
	}

	idle := dial() // connects and says nothing
	slowHeaders := dial()
	_, err := io.WriteString(slowHeaders, "GET /api/ap/agents HTTP/1.1\r\nHost: localhost\r\n")
	require.NoError(t, err)
	slowBody := dial()
	_, err = io.WriteString(slowBody, "POST /api/ap/read HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"+
		"Content-Length: 1000\r\n\r\n{\"chatId\":")
	require.NoError(t, err)
	keptAlive := dial()
	_, err = io.WriteString(keptAlive, "GET /api/ap/agents HTTP/1.1\r\nHost: localhost\r\n\r\n")
	require.NoError(t, err)
	kbr := bufio.NewReader(keptAlive)
	resp, err := http.ReadResponse(kbr, nil)
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)

	for name, c := range map[string]net.Conn{"idle": idle, "slow headers": slowHeaders, "slow body": slowBody} {
		require.True(t, closedWithin(c, bufio.NewReader(c), 5*time.Second), "%s connection still open", name)
	}
	require.True(t, closedWithin(keptAlive, kbr, 5*time.Second), "idle kept-alive connection still open")
	r.stop()
}

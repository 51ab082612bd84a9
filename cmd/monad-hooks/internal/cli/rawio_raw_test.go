//go:build linux && !race

package cli

import (
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRawIO: rawIO reads and writes a socket as net.Conn does: what was
// written, the whole of a write larger than the socket's buffers (the
// peer reading meanwhile), a timeout at the read deadline, io.EOF when the
// peer closes.
func TestRawIO(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	client, err := net.Dial("tcp", ln.Addr().String())
	require.NoError(t, err)
	defer client.Close()
	server, err := ln.Accept()
	require.NoError(t, err)
	defer server.Close()
	r := newRawIO(server)
	require.NotNil(t, r)

	_, err = io.WriteString(client, "hello")
	require.NoError(t, err)
	buf := make([]byte, 16)
	n, err := r.Read(buf)
	require.NoError(t, err)
	assert.Equal(t, "hello", string(buf[:n]))

	big := strings.Repeat("x", 8<<20)
	got := make(chan int, 1)
	go func() {
		n, _ := io.CopyN(io.Discard, client, int64(len(big)))
		got <- int(n)
	}()
	n, err = r.Write([]byte(big))
	require.NoError(t, err)
	assert.Equal(t, len(big), n)
	assert.Equal(t, len(big), <-got)

	server.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
	_, err = r.Read(buf)
	var ne net.Error
	require.True(t, errors.As(err, &ne) && ne.Timeout(), "%v", err)

	server.SetReadDeadline(time.Time{})
	client.Close()
	_, err = r.Read(buf)
	assert.ErrorIs(t, err, io.EOF)
}

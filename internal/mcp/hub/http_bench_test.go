package hub

import (
	"context"
	"io"
	"net"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A tool call to a streamable HTTP server: through the hub (client ->
// unix socket -> hub -> HTTP) and directly (the go-sdk's client
// transport), to see what the hub adds.
func BenchmarkHTTPCall(b *testing.B) {
	srv := startHTTP(b, nil)
	ctx := context.Background()
	b.Run("hub", func(b *testing.B) {
		h := New(&Config{Servers: map[string]ServerConfig{"web": {URL: srv.url()}}}, io.Discard)
		defer h.Close()
		cs := benchClient(b, h)
		b.ResetTimer()
		for b.Loop() {
			if _, err := callText(ctx, cs, "echo", args{Text: "x"}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("direct", func(b *testing.B) {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).
			Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.url()}, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer cs.Close()
		b.ResetTimer()
		for b.Loop() {
			if _, err := callText(ctx, cs, "echo", args{Text: "x"}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// benchClient is a go-sdk client of h over an in-memory connection.
func benchClient(b *testing.B, h *Hub) *mcp.ClientSession {
	hubSide, clientSide := net.Pipe()
	go h.ServeConn(hubSide)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).
		Connect(context.Background(), &mcp.IOTransport{Reader: clientSide, Writer: clientSide}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cs.Close() })
	return cs
}

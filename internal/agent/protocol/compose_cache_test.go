package protocol

import (
	"bytes"
	"testing"

	"github.com/aitexteditor/aite/internal/agent/agentctx"
)

// TestComposeCacheSameAsUncached: the composition cache never changes a
// request — the wire schema and the rendered messages of a cached
// composition equal those built from scratch, on a first and a repeated
// turn, after a new instance appears and on the final turn.
func TestComposeCacheSameAsUncached(t *testing.T) {
	a, c, reg := benchComposeSetup(t)
	plain := *a
	plain.cache = nil
	more := append(agentctx.Context(nil), c...)
	m, err := agentctx.ParseMessage([]byte(`{"type":"state","_instance":"t9","state":{"pointer":"9:1.p1","markdown":"New."}}`))
	if err != nil {
		t.Fatal(err)
	}
	more = append(more, m)
	cases := []struct {
		name string
		ctx  agentctx.Context
		turn TurnInfo
	}{
		{"first", c, TurnInfo{Turn: 1, MaxTurns: 16, FirstOfChat: true, RunStart: len(c)}},
		{"repeated", c, TurnInfo{Turn: 2, MaxTurns: 16, RunStart: len(c)}},
		{"new instance", more, TurnInfo{Turn: 3, MaxTurns: 16, RunStart: len(c)}},
		{"final", more, TurnInfo{Turn: 16, MaxTurns: 16, Final: true, RunStart: len(c)}},
		{"back to 8 instances", c, TurnInfo{Turn: 4, MaxTurns: 16, RunStart: len(c)}},
	}
	var prev []byte
	for _, tc := range cases {
		got, err := Compose(a, tc.ctx, tc.turn, reg)
		if err != nil {
			t.Fatal(err)
		}
		want, err := Compose(&plain, tc.ctx, tc.turn, reg)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.WireJSON, want.WireJSON) {
			t.Fatalf("%s: cached wire schema differs from the uncached one", tc.name)
		}
		gs, gu := Render(got, tc.ctx)
		ws, wu := Render(want, tc.ctx)
		if gs != ws || gu != wu {
			t.Fatalf("%s: cached render differs from the uncached one", tc.name)
		}
		if tc.name == "new instance" && bytes.Equal(got.WireJSON, prev) {
			t.Fatal("a new instance must change the wire schema (its _instance enum)")
		}
		prev = got.WireJSON
	}
}

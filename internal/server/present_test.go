package server

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/store"
)

func (e *dcEnv) postPath(t *testing.T, path, body string) mtEnvelope {
	t.Helper()
	req := localRequest(http.MethodPost, path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	return mtDo(t, e.h, req)
}

func TestRenderAndDiff(t *testing.T) {
	e := dcServer(t, 0)
	got := mtData[presentResult](t, e.postPath(t, "/api/ap/render", `{"markdown": ["**Готово.** См. 24:1.1.p21", "<script>x()</script>", ""]}`))
	require.Equal(t, []string{"<p><strong>Готово.</strong> См. 24:1.1.p21</p>\n", "<!-- raw HTML omitted -->\n", ""}, got.HTML)

	got = mtData[presentResult](t, e.postPath(t, "/api/ap/diff", `{"pairs": [{"before": "— Тише, — сказал он.", "after": "— Тише, — произнёс он."}, {"after": "<new>"}]}`))
	require.Equal(t, []string{"— Тише, — <del>сказал</del><ins>произнёс</ins> он.", "<ins>&lt;new&gt;</ins>"}, got.HTML)

	mtFail(t, e.postPath(t, "/api/ap/render", `{}`), http.StatusBadRequest, "Validation failed", `{"fields": {"markdown": "must not be null"}}`)
	mtFail(t, e.postPath(t, "/api/ap/diff", `{"pairs": null}`), http.StatusBadRequest, "Validation failed", `{"fields": {"pairs": "must not be null"}}`)
	mtFail(t, e.postPath(t, "/api/ap/render", `{"markdown": "x"}`), http.StatusBadRequest, "Wrong type for field markdown", `{}`)
	many := `{"markdown": [` + strings.Repeat(`"x",`, maxPresentItems) + `"x"]}`
	mtFail(t, e.postPath(t, "/api/ap/render", many), http.StatusBadRequest, "Too many entries in markdown: the limit is 500", `{}`)
}

func TestChatsOfADocument(t *testing.T) {
	e := dcServer(t, 0)
	ctx := context.Background()
	doc := "6f1c2a7e-0000-4000-8000-000000000001"
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, d := range []string{doc, "", doc} {
		id := "00000000-0000-4000-8000-00000000000" + string(rune('1'+i))
		require.NoError(t, e.st.CreateChat(ctx, store.Chat{ID: id, Name: "c", AgentKey: "bookEditor", DocumentID: d,
			CreatedAt: at, UpdatedAt: at.Add(time.Duration(i) * time.Minute)}))
	}
	all := mtData[[]ChatSummary](t, mtGet(t, e.h, "/api/ap/chats"))
	require.Len(t, all, 3)
	mine := mtData[[]ChatSummary](t, mtGet(t, e.h, "/api/ap/chats?documentId="+strings.ToUpper(doc)))
	require.Len(t, mine, 2)
	for _, c := range mine {
		require.Equal(t, doc, c.DocumentID)
	}
	require.Equal(t, "00000000-0000-4000-8000-000000000003", mine[0].ChatID, "most recently updated first")
	mtFail(t, mtGet(t, e.h, "/api/ap/chats?documentId=nope"), http.StatusBadRequest, "documentId must be a valid UUID", `{}`)
}

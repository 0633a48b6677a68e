package bookprotocol

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/agent/agentctx"
	"github.com/aitexteditor/aite/internal/agent/protocol"
)

func items(v map[string]any) []map[string]any {
	var out []map[string]any
	for _, it := range v["items"].([]any) {
		out = append(out, it.(map[string]any))
	}
	return out
}

func TestReadCursorBatchIsStatelessAndShapedAsTheBatchKind(t *testing.T) {
	env := sampleEnv(t)
	acts := Activities(env)
	c := mustRun(t, acts, CreateKeywordCursor, `{"keywords":["Звёздочкин"],"includeHeadings":null}`, nil)
	name := c["cursorName"].(string)
	require.Equal(t, "kwd_cursor_0", name)

	res, err := run(t, acts, ReadCursorBatch, `{"cursorName":"`+name+`","startAfterPointer":null}`, nil)
	require.NoError(t, err)
	require.Equal(t, []string{"cursorName", "items", "hasMore", "nextAfterPointer", "position"}, res.Value.(*agentctx.Object).Keys())
	first := plain(t, res.Value)
	its := items(first)
	require.Len(t, its, filteredBatchItems, "a keyword cursor without limits is read in small batches")
	require.Equal(t, "Heading", its[0]["kind"], "headings are included by default")
	require.Contains(t, its[0]["markdown"], "Звёздочкин")
	for _, it := range its {
		require.ElementsMatch(t, []string{"pointer", "kind", "markdown"}, mapKeys(it))
	}
	require.Equal(t, true, first["hasMore"])
	require.Equal(t, its[len(its)-1]["pointer"], first["nextAfterPointer"])
	pos := first["position"].(map[string]any)
	require.Nil(t, pos["startAfterPointer"])
	require.Greater(t, pos["remaining"].(float64), float64(0))

	again := mustRun(t, acts, ReadCursorBatch, `{"cursorName":"`+name+`"}`, nil)
	require.Equal(t, first, again, "the same arguments give the same batch: the session cursor did not move")
	info, err := env.Session.Cursor(env.Book, name)
	require.NoError(t, err)
	require.False(t, info.Complete)
	cursors, err := env.Session.Cursors(env.Book)
	require.NoError(t, err)
	for _, ci := range cursors {
		require.False(t, strings.HasPrefix(ci.Name, "_batch_"), "private cursors are deleted: %s", ci.Name)
	}

	next := first["nextAfterPointer"].(string)
	second := mustRun(t, acts, ReadCursorBatch, `{"cursorName":"`+name+`","startAfterPointer":"`+next+`"}`, nil)
	require.NotEqual(t, its[0]["pointer"], items(second)[0]["pointer"])
	require.Equal(t, next, second["position"].(map[string]any)["startAfterPointer"])

	// Read to the end: the batch after the last one is empty and keeps its place.
	cur := second
	for cur["hasMore"] == true {
		cur = mustRun(t, acts, ReadCursorBatch, `{"cursorName":"`+name+`","startAfterPointer":"`+cur["nextAfterPointer"].(string)+`"}`, nil)
	}
	end := cur["nextAfterPointer"].(string)
	after := mustRun(t, acts, ReadCursorBatch, `{"cursorName":"`+name+`","startAfterPointer":"`+end+`"}`, nil)
	require.Empty(t, after["items"])
	require.Equal(t, false, after["hasMore"])
	require.Equal(t, end, after["nextAfterPointer"], "an empty batch does not send the reader back to the start")
}

func mapKeys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestReadCursorBatchErrors(t *testing.T) {
	acts := Activities(sampleEnv(t))
	_, err := run(t, acts, ReadCursorBatch, `{"cursorName":"nope"}`, nil)
	require.Equal(t, "Cursor 'nope' is not defined", modelError(t, err, "invalid_arguments"))
	_, err = run(t, acts, ReadCursorBatch, `{"cursorName":" "}`, nil)
	require.Contains(t, modelError(t, err, "invalid_arguments"), "needs cursorName")
	_, err = run(t, acts, ReadCursorBatch, `{"cursorName":"CUR_WHOLE_BOOK_FORWARD","startAfterPointer":"9.9.p99"}`, nil)
	require.Contains(t, modelError(t, err, "invalid_arguments"), "startAfterPointer")
	_, err = run(t, acts, ReadCursorBatch, `{"cursorName":7}`, nil)
	modelError(t, err, "invalid_arguments")
	_, err = run(t, Activities(sampleEnv(t)), CreateKeywordCursor, `{"keywords":[]}`, nil)
	require.Contains(t, modelError(t, err, "invalid_arguments"), "keyword")
}

func TestReadCursorBatchOfTheWholeBookUsesScanBatches(t *testing.T) {
	acts := Activities(sampleEnv(t))
	c := mustRun(t, acts, CreateFullScanCursor, `{}`, nil)
	b := mustRun(t, acts, ReadCursorBatch, `{"cursorName":"`+c["cursorName"].(string)+`","startAfterPointer":null}`, nil)
	require.LessOrEqual(t, len(items(b)), scanBatchItems)
	require.Greater(t, len(items(b)), filteredBatchItems)
}

// batchOf reads the first batch of a keyword cursor and returns it with the
// context holding it as the `batch` kind.
func batchOf(t *testing.T, acts map[string]protocol.Activity, keyword string) (map[string]any, []agentctx.Message) {
	t.Helper()
	c := mustRun(t, acts, CreateKeywordCursor, `{"keywords":["`+keyword+`"]}`, nil)
	res, err := run(t, acts, ReadCursorBatch, `{"cursorName":"`+c["cursorName"].(string)+`"}`, nil)
	require.NoError(t, err)
	return plain(t, res.Value), []agentctx.Message{batchWrite(t, res.Value)}
}

func TestNoteEvidenceFillsInTheItemsMarkdown(t *testing.T) {
	acts := Activities(sampleEnv(t))
	batch, ctx := batchOf(t, acts, "Звёздочкин")
	it := items(batch)[1]
	ptr := it["pointer"].(string)
	label := ptr[strings.Index(ptr, ":")+1:]
	long := strings.Repeat("я", 400)
	res, err := run(t, acts, NoteEvidence, `{"pointer":"`+label+`","reason":"  `+long+` "}`, scopedOf(ctx, "", "batch"))
	require.NoError(t, err)
	v := res.Value.(*agentctx.Object)
	require.Equal(t, []string{"pointer", "reason", "markdown"}, v.Keys())
	got := plain(t, v)
	require.Equal(t, ptr, got["pointer"], "a lenient pointer is given back in its canonical form")
	require.Equal(t, it["markdown"], got["markdown"], "the markdown is the item's own, in full")
	require.Len(t, []rune(got["reason"].(string)), maxReasonChars+1, "reasons are clipped")
}

func TestNoteEvidenceRefusesPointersOutsideTheBatch(t *testing.T) {
	env := sampleEnv(t)
	acts := Activities(env)
	batch, ctx := batchOf(t, acts, "Звёздочкин")
	its := items(batch)
	last, err := env.Session.Resolve(env.Book, its[len(its)-1]["pointer"].(string))
	require.NoError(t, err)
	outside := ""
	for _, p := range []string{"1.p1", "5.p1", "4.p1"} { // an item of the book that is not in this batch
		in := false
		for _, it := range its {
			in = in || strings.HasSuffix(it["pointer"].(string), ":"+p)
		}
		if !in {
			outside = p
			break
		}
	}
	require.NotEmpty(t, outside)
	_, err = run(t, acts, NoteEvidence, `{"pointer":"`+outside+`","reason":"r"}`, scopedOf(ctx, "", "batch"))
	msg := modelError(t, err, "not_found")
	require.Contains(t, msg, outside)
	require.Contains(t, msg, last.Pointer.String(), "the message shows the batch's range")
	_, err = run(t, acts, NoteEvidence, `{"pointer":"not a pointer","reason":"r"}`, scopedOf(ctx, "", "batch"))
	modelError(t, err, "not_found")
	_, err = run(t, acts, NoteEvidence, `{"pointer":"1.p1","reason":"r"}`, scopedOf(nil, "", "batch"))
	require.Contains(t, modelError(t, err, "invalid_arguments"), "read_cursor_batch first")
	_, err = run(t, acts, NoteEvidence, `{"pointer":"","reason":"r"}`, scopedOf(ctx, "", "batch"))
	modelError(t, err, "invalid_arguments")
}

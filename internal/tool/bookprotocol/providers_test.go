package bookprotocol

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aitexteditor/aite/internal/agent/agentctx"
	"github.com/aitexteditor/aite/internal/editor"
	"github.com/aitexteditor/aite/internal/tool/booktools"
)

const cardsBook = `# A novel

Ilya Orlov looked at the sky.

## Chapter 1

Vera Orlova watered her plants.

## Appendix

### Characters

- **Ilya Orlov**: astronomer, the elder brother
- Vera Orlova — botanist

A note without a name.

#### Kuzma

The caretaker of the observatory.

### Glossary:

- Ratusha: the town hall

### Style guide

- Dialogue uses em dashes.
- No exclamation marks in narration.
`

// provide runs every provider and returns its messages by name.
func provide(t *testing.T, env booktools.Env) map[string][]agentctx.Message {
	t.Helper()
	out := map[string][]agentctx.Message{}
	ps := Providers(env)
	require.Len(t, ps, 3)
	for name, p := range ps {
		msgs, err := p(context.Background())
		require.NoError(t, err, name)
		out[name] = msgs
	}
	return out
}

func TestProvidersWithoutCardsGiveNoMessage(t *testing.T) {
	for name, msgs := range provide(t, sampleEnv(t)) {
		require.Empty(t, msgs, name)
	}
	for name, msgs := range provide(t, booktools.Env{}) {
		require.Empty(t, msgs, name)
	}
	for name, msgs := range provide(t, booktools.Env{Session: editor.New(), Book: "missing"}) {
		require.Empty(t, msgs, name)
	}
}

func TestProvidersReadTheAppendix(t *testing.T) {
	got := provide(t, bookEnv(t, []byte(cardsBook)))
	ch := got[ProviderCharacters]
	require.Len(t, ch, 1)
	require.Equal(t, agentctx.TypeData, ch[0].Type)
	require.Equal(t, KindCharacters, ch[0].Kind)
	require.NotEmpty(t, ch[0].Description)
	require.Equal(t, `{"Ilya Orlov":"astronomer, the elder brother","Vera Orlova":"botanist","notes":"A note without a name.","Kuzma":"The caretaker of the observatory."}`,
		string(mustEncode(t, ch[0].Value)))
	require.Equal(t, `{"Ratusha":"the town hall"}`, string(mustEncode(t, got[ProviderGlossary][0].Value)))
	sg := got[ProviderStyleGuide]
	require.Equal(t, KindStyleGuide, sg[0].Kind)
	require.Equal(t, `{"rules":["Dialogue uses em dashes.","No exclamation marks in narration."]}`, string(mustEncode(t, sg[0].Value)))
	for _, msgs := range got {
		_, err := agentctx.MessageFromObject(msgs[0].Object())
		require.NoError(t, err)
	}
}

func TestProvidersPreferTheSidecar(t *testing.T) {
	dir := t.TempDir()
	book := filepath.Join(dir, "novel.md")
	require.NoError(t, os.WriteFile(book, []byte(cardsBook), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "novel"+CardsSuffix),
		[]byte(`{"characters":{"prof_orlov":"Ilya Orlov, astronomer","prof_orlova":"Vera Orlova, botanist"}}`), 0o644))
	s := editor.New()
	info, err := s.Open(book)
	require.NoError(t, err)
	got := provide(t, booktools.Env{Session: s, Book: info.ID})
	require.Equal(t, `{"prof_orlov":"Ilya Orlov, astronomer","prof_orlova":"Vera Orlova, botanist"}`,
		string(mustEncode(t, got[ProviderCharacters][0].Value)))
	require.Equal(t, `{"Ratusha":"the town hall"}`, string(mustEncode(t, got[ProviderGlossary][0].Value)),
		"a card the sidecar lacks comes from the appendix")

	require.NoError(t, os.WriteFile(filepath.Join(dir, "novel"+CardsSuffix), []byte(`{"characters":`), 0o644))
	_, err = Providers(booktools.Env{Session: s, Book: info.ID})[ProviderCharacters](context.Background())
	require.ErrorContains(t, err, "novel"+CardsSuffix)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "novel"+CardsSuffix), []byte(`[1]`), 0o644))
	_, err = Providers(booktools.Env{Session: s, Book: info.ID})[ProviderGlossary](context.Background())
	require.ErrorContains(t, err, "not a JSON object")

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = Providers(booktools.Env{Session: s, Book: info.ID})[ProviderStyleGuide](ctx)
	require.ErrorIs(t, err, context.Canceled)
}

package mcpserver

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

func TestResources(t *testing.T) {
	lib, _ := fileLibrary(t)
	cs := connect(t, lib, Options{}, nil, "")
	ctx := context.Background()

	list, err := cs.ListResources(ctx, nil)
	require.NoError(t, err)
	require.Len(t, list.Resources, 1)
	require.Equal(t, "aite://documents/zvezdochkin.md/outline", list.Resources[0].URI)
	require.Equal(t, markdownMIME, list.Resources[0].MIMEType)
	templates, err := cs.ListResourceTemplates(ctx, nil)
	require.NoError(t, err)
	require.Len(t, templates.ResourceTemplates, 2)

	outline, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: list.Resources[0].URI})
	require.NoError(t, err)
	text := outline.Contents[0].Text
	require.Contains(t, text, "# zvezdochkin.md — outline")
	require.Contains(t, text, "- `1:1` Звёздочкин и часы на башне — 1 items (105 with subsections)")
	require.Contains(t, text, "    - `59:1.3.1` Записи за четверг — 5 items")

	for _, uri := range []string{ItemURI("zvezdochkin.md", "6:1.1.p3"), "aite://documents/zvezdochkin.md/items/6:1.1.p3",
		"aite://documents/zvezdochkin.md/items/1.1.p3", "aite://documents/zvezdochkin.md/items/6"} {
		item, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		require.NoError(t, err, uri)
		require.Contains(t, item.Contents[0].Text, "ГУБЕРНСКИЙ УНИВЕРСИТЕТ", uri)
		require.Equal(t, markdownMIME, item.Contents[0].MIMEType)
	}
	_, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: ItemURI("zvezdochkin.md", "999")})
	require.ErrorContains(t, err, "nearest pointers: 104:1.5.p8")
	_, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: OutlineURI("other.md")})
	require.ErrorContains(t, err, "Resource not found")
}

package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/aitexteditor/aite/internal/editor"
)

// The resources: every document's outline, and every item by pointer.
const (
	resourcePrefix  = "aite://documents/"
	outlineTemplate = resourcePrefix + "{documentId}/outline"
	itemTemplate    = resourcePrefix + "{documentId}/items/{+pointer}"
	markdownMIME    = "text/markdown"
)

// OutlineURI is the resource of a document's outline.
func OutlineURI(documentID string) string {
	return resourcePrefix + url.PathEscape(documentID) + "/outline"
}

// ItemURI is the resource of one item.
func ItemURI(documentID, pointer string) string {
	return resourcePrefix + url.PathEscape(documentID) + "/items/" + url.PathEscape(pointer)
}

func (s *server) addResources(srv *mcp.Server) {
	srv.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: outlineTemplate, Name: "outline", MIMEType: markdownMIME,
		Description: "The heading tree of a document, with the pointer and the item counts of every section."}, s.readResource)
	srv.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: itemTemplate, Name: "item", MIMEType: markdownMIME,
		Description: "One item of a document, as its exact Markdown; pointer as the tools give it (24:1.1.p21, 1.1.p21 or 24)."}, s.readResource)
}

// outlineResources lists the outline of every document (resources/list).
func (s *server) outlineResources(ctx context.Context) ([]*mcp.Resource, error) {
	docs, err := s.lib.Documents(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]*mcp.Resource, len(docs))
	for i, d := range docs {
		out[i] = &mcp.Resource{URI: OutlineURI(d.ID), Name: d.Name + " — outline", MIMEType: markdownMIME,
			Description: fmt.Sprintf("The heading tree of %s (%d items) with pointers.", d.Name, d.Items)}
	}
	return out, nil
}

// readResource serves both templates.
func (s *server) readResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	rest, _ := strings.CutPrefix(uri, resourcePrefix)
	escID, what, _ := strings.Cut(rest, "/")
	id, err := url.PathUnescape(escID)
	if err != nil {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	book, err := s.lib.Open(ctx, id)
	if errors.Is(err, ErrNotFound) {
		return nil, mcp.ResourceNotFoundError(uri)
	} else if err != nil {
		return nil, err
	}
	var text string
	err = book.Read(ctx, func(ss *editor.Session, sid string) error {
		if what == "outline" {
			text, err = outlineMarkdown(ss, sid, book.Name())
			return err
		}
		ptr, ok := strings.CutPrefix(what, "items/")
		if ptr, err = url.PathUnescape(ptr); !ok || err != nil {
			return errNoResource
		}
		v, err := ss.Resolve(sid, ptr)
		text = v.Markdown
		return err
	})
	if err != nil {
		return nil, resourceError(uri, err)
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: markdownMIME, Text: text}}}, nil
}

var errNoResource = errors.New("no such resource")

// resourceError reports a pointer that names nothing with the editor's
// reason (which names the nearest pointers).
func resourceError(uri string, err error) error {
	if errors.Is(err, errNoResource) {
		return mcp.ResourceNotFoundError(uri)
	}
	if errors.Is(err, editor.ErrIO) {
		return err
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Resource not found: " + err.Error()}
}

// outlineMarkdown renders the heading tree as a Markdown list.
func outlineMarkdown(ss *editor.Session, id, name string) (string, error) {
	ol, err := ss.Outline(id)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# %s — outline\n\n", name)
	if ol.Preamble > 0 {
		fmt.Fprintf(&b, "%d items before the first heading.\n\n", ol.Preamble)
	}
	writeSections(&b, ol.Sections, 0)
	return b.String(), nil
}

func writeSections(b *strings.Builder, secs []editor.SectionView, depth int) {
	for _, s := range secs {
		fmt.Fprintf(b, "%s- `%s` %s — %d items", strings.Repeat("  ", depth), s.Pointer, s.Title, s.Items)
		if s.Total != s.Items {
			fmt.Fprintf(b, " (%d with subsections)", s.Total)
		}
		b.WriteString("\n")
		writeSections(b, s.Children, depth+1)
	}
}

package app_test

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
)

// markdownDoc is a Markdown file of the repository, parsed as GitHub renders it, for the tests
// that hold the documentation to the service.
type markdownDoc struct {
	path   string
	source []byte
	root   ast.Node
}

func readMarkdown(tb testing.TB, path string) *markdownDoc {
	tb.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	md := goldmark.New(goldmark.WithExtensions(extension.GFM))
	return &markdownDoc{path: path, source: src, root: md.Parser().Parse(text.NewReader(src))}
}

// codeBlock is a fenced code block: the language its fence names, its text, and where it starts.
type codeBlock struct {
	lang, text string
	line       int
}

// where names a line of the document, as file:line.
func (d *markdownDoc) where(line int) string { return d.path + ":" + strconv.Itoa(line) }

// lineAt is the line, from 1, of the byte at offset.
func (d *markdownDoc) lineAt(offset int) int { return bytes.Count(d.source[:offset], []byte("\n")) + 1 }

func (d *markdownDoc) block(n *ast.FencedCodeBlock) codeBlock {
	var b strings.Builder
	lines := n.Lines()
	for i := range lines.Len() {
		seg := lines.At(i)
		b.Write(seg.Value(d.source))
	}
	line := 0
	if lines.Len() > 0 {
		line = d.lineAt(lines.At(0).Start)
	}
	return codeBlock{lang: string(n.Language(d.source)), text: b.String(), line: line}
}

// sectionBlocks returns the fenced code blocks in lang under the level-2 heading named heading,
// up to the next level-2 heading.
func (d *markdownDoc) sectionBlocks(heading, lang string) []codeBlock {
	var out []codeBlock
	in := false
	for n := d.root.FirstChild(); n != nil; n = n.NextSibling() {
		if h, ok := n.(*ast.Heading); ok && h.Level == 2 {
			in = d.headingText(h) == heading
		}
		if fb, ok := n.(*ast.FencedCodeBlock); ok && in && string(fb.Language(d.source)) == lang {
			out = append(out, d.block(fb))
		}
	}
	return out
}

// blocks returns every fenced code block in lang.
func (d *markdownDoc) blocks(lang string) []codeBlock {
	var out []codeBlock
	_ = ast.Walk(d.root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if fb, ok := n.(*ast.FencedCodeBlock); ok && entering && string(fb.Language(d.source)) == lang {
			out = append(out, d.block(fb))
		}
		return ast.WalkContinue, nil
	})
	return out
}

// headingText is a heading as it reads, code spans and links included.
func (d *markdownDoc) headingText(h *ast.Heading) string {
	var b strings.Builder
	_ = ast.Walk(h, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch t := n.(type) {
		case *ast.Text:
			b.Write(t.Segment.Value(d.source))
		case *ast.String:
			b.Write(t.Value)
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

// anchors returns the fragments GitHub gives the document's headings: the heading in lower case,
// without punctuation, spaces as hyphens, and -1, -2, ... after a repeated one.
func (d *markdownDoc) anchors() map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	_ = ast.Walk(d.root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		h, ok := n.(*ast.Heading)
		if !ok || !entering {
			return ast.WalkContinue, nil
		}
		slug := githubSlug(d.headingText(h))
		if k := seen[slug]; k > 0 {
			out[slug+"-"+strconv.Itoa(k)] = true
		} else {
			out[slug] = true
		}
		seen[slug]++
		return ast.WalkSkipChildren, nil
	})
	return out
}

func githubSlug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.Mn, r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// mdLink is a link's or an image's destination and the line it is on.
type mdLink struct {
	dest string
	line int
}

// links returns the destinations of the document's links and images.
func (d *markdownDoc) links() []mdLink {
	var out []mdLink
	// A link's line is that of the block it is in: inline nodes carry no position of their own.
	line := 0
	_ = ast.Walk(d.root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		if n.Type() == ast.TypeBlock && n.Lines().Len() > 0 {
			line = d.lineAt(n.Lines().At(0).Start)
		}
		switch l := n.(type) {
		case *ast.Link:
			out = append(out, mdLink{dest: string(l.Destination), line: line})
		case *ast.Image:
			out = append(out, mdLink{dest: string(l.Destination), line: line})
		}
		return ast.WalkContinue, nil
	})
	return out
}

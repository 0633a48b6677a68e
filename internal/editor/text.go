package editor

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"unicode/utf8"

	"github.com/aitexteditor/aite/internal/document"
	"github.com/aitexteditor/aite/internal/markdown"
)

// ErrEncoding is wrapped by the error for a book file that is not UTF-8
// text: aite would otherwise split and match words wrongly and could write
// a mixture of encodings back.
var ErrEncoding = errors.New("not UTF-8 text")

// ErrReadOnly is wrapped by the error for a save over a book file that has
// no write permission at all (mode without any w bit): the user marked it
// read-only, and replacing it (which the directory would allow) needs an
// explicit force.
var ErrReadOnly = errors.New("read-only")

// CheckText returns an error wrapping ErrEncoding, naming the likely
// encoding and how to convert, when src is not UTF-8 text: invalid UTF-8,
// UTF-16, or binary data (NUL bytes). name is the file as the user gave it.
func CheckText(name string, src []byte) error {
	switch {
	case isUTF16(src):
		return encodingErr(name, "UTF-16", "it starts with a UTF-16 byte order mark or has a NUL byte beside every other character", "UTF-16")
	}
	if i := bytes.IndexByte(src, 0); i >= 0 {
		return fmt.Errorf("%w: %s holds binary data (a NUL byte on line %d), not a Markdown text", ErrEncoding, name, lineOf(src, i))
	}
	if utf8.Valid(src) {
		return nil
	}
	bad := firstInvalid(src)
	enc, from := guessSingleByte(src)
	return encodingErr(name, enc, fmt.Sprintf("the first byte that is not UTF-8 is on line %d", lineOf(src, bad)), from)
}

func encodingErr(name, enc, why, from string) error {
	return fmt.Errorf("%w: %s is not UTF-8; it looks like %s (%s). Convert it first, e.g. `iconv -f %s -t UTF-8 %s > %s.utf8.md`",
		ErrEncoding, name, enc, why, from, name, trimExt(name))
}

func trimExt(name string) string {
	if i := bytes.LastIndexByte([]byte(name), '.'); i > 0 {
		return name[:i]
	}
	return name
}

// isUTF16 reports whether src is UTF-16: it starts with a byte order mark
// or looks like UTF-16 without one.
func isUTF16(src []byte) bool {
	return bytes.HasPrefix(src, []byte{0xFF, 0xFE}) || bytes.HasPrefix(src, []byte{0xFE, 0xFF}) || looksUTF16(src)
}

// looksUTF16 reports whether the first bytes have NULs at every other
// position (UTF-16 text without a byte order mark).
func looksUTF16(src []byte) bool {
	n := min(len(src), 512) &^ 1
	if n < 8 {
		return false
	}
	even, odd := 0, 0
	for i := 0; i < n; i += 2 {
		if src[i] == 0 {
			even++
		}
		if src[i+1] == 0 {
			odd++
		}
	}
	half := n / 2
	return even > half*3/4 || odd > half*3/4
}

func firstInvalid(src []byte) int {
	for i := 0; i < len(src); {
		r, size := utf8.DecodeRune(src[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return len(src)
}

func lineOf(src []byte, off int) int { return bytes.Count(src[:off], []byte{'\n'}) + 1 }

// guessSingleByte names the likely single-byte encoding of a non-UTF-8
// text and its iconv name: Cyrillic text has most of its letters above
// 0x7F, where lower case takes 0xE0–0xFF in Windows-1251 and 0xC0–0xDF in
// KOI8-R; a Western text has few.
func guessSingleByte(src []byte) (string, string) {
	var ascii, high, win, koi int
	for _, c := range src {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
			ascii++
		case c >= 0xE0:
			high++
			win++
		case c >= 0xC0:
			high++
			koi++
		case c >= 0x80:
			high++
		}
	}
	switch {
	case high < (ascii+high)/3:
		return "Windows-1252 or Latin-1 (Western European)", "WINDOWS-1252"
	case koi > win:
		return "KOI8-R (Cyrillic)", "KOI8-R"
	}
	return "Windows-1251 (Cyrillic)", "WINDOWS-1251"
}

// checkWritable refuses to replace an existing file without any write
// permission bit, unless force.
func checkWritable(path string, force bool) error {
	fi, err := os.Stat(path)
	if err != nil || force || fi.Mode().Perm()&0o222 != 0 {
		return nil // a missing file is created; other stat errors surface on write
	}
	return fmt.Errorf("%w: %w: %s is read-only (mode %s); make it writable (chmod u+w) or force the write", ErrIO, ErrReadOnly,
		path, fi.Mode().Perm())
}

// parseBook parses a book read from its file (markdown.ParseEach) and, on
// the processor that parsed each part, checks its bytes as CheckText does
// and hashes its items (document.ItemHash), while the SHA-256 of the whole
// book is computed beside the parse: a book's first open then has nothing
// left to do one byte or one item at a time after the parse. A book that
// is not UTF-8 text gives CheckText's error.
func parseBook(path string, src []byte) (d *document.Document, sha string, hashes []uint64, err error) {
	if isUTF16(src) {
		return nil, "", nil, CheckText(path, src)
	}
	sum := make(chan string, 1)
	go func() { sum <- digest(src) }()
	d, parts := markdown.ParseEach(src, func(part []byte, start int, items []*document.Item) partFacts {
		// A part starts after a line ending (or at 0), so no character
		// is split between two parts and each can be checked alone.
		text := (start == 0 || src[start-1] == '\n') && bytes.IndexByte(part, 0) < 0 && utf8.Valid(part)
		return partFacts{text: text, hashes: document.HashItems(src, items)}
	})
	sha = <-sum
	text := true
	hashes = make([]uint64, 0, d.Len())
	for _, p := range parts {
		text = text && p.text
		hashes = append(hashes, p.hashes...)
	}
	if !text { // CheckText says why (or, should a part have doubted wrongly, that it is text)
		if err := CheckText(path, src); err != nil {
			return nil, "", nil, err
		}
	}
	return d, sha, hashes, nil
}

// partFacts is what parseBook learns of one part of a book.
type partFacts struct {
	text   bool // UTF-8 text without NUL bytes
	hashes []uint64
}

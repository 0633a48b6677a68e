package auth

import (
	"fmt"
	"mime"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// CleanDataPath is step 1 of § 8.3. The file parameter (already URL-decoded once by the HTTP
// layer) is trimmed; empty, containing `\` or a NUL byte, or having a `..` segment fails with
// ErrInvalidFile. Leading slashes are stripped ("/data/x.png" is "data/x.png" below the data
// directory); the rest must be a non-empty local relative path. The result is in slash form with
// empty and "." segments removed, so it compares equal to a normalised reference (NormalizeRef).
func CleanDataPath(param string) (string, error) {
	p := strings.TrimSpace(param)
	if p == "" || strings.ContainsAny(p, "\\\x00") {
		return "", ErrInvalidFile
	}
	for seg := range strings.SplitSeq(p, "/") {
		if seg == ".." {
			return "", ErrInvalidFile
		}
	}
	p = path.Clean(strings.TrimLeft(p, "/"))
	if p == "." || p == "" || !filepath.IsLocal(filepath.FromSlash(p)) {
		return "", ErrInvalidFile
	}
	return p, nil
}

// ResolveDataFile is steps 2 and 4 of § 8.3: it joins rel (a CleanDataPath result) to dataDir,
// requires the cleaned result to lie strictly inside dataDir (else ErrInvalidFilename), and
// requires an existing regular file reached without any symbolic link below dataDir, neither
// the file itself nor a directory on the way (else ErrFileNotFound, wrapping the cause, which
// may name the path). dataDir itself may be a link.
//
// The check and the later open are separate steps: the data directory must not be writable by
// untrusted parties, or a link could be swapped in between.
func ResolveDataFile(dataDir, rel string) (string, error) {
	base := filepath.Clean(dataDir)
	target := filepath.Join(base, filepath.FromSlash(rel))
	inside, err := filepath.Rel(base, target)
	if err != nil || inside == "." || !filepath.IsLocal(inside) {
		return "", ErrInvalidFilename
	}
	cur := base
	parts := strings.Split(inside, string(filepath.Separator))
	for n, part := range parts {
		cur = filepath.Join(cur, part)
		info, err := os.Lstat(cur)
		switch {
		case err != nil:
			return "", fmt.Errorf("%w: %w", ErrFileNotFound, err)
		case info.Mode()&os.ModeSymlink != 0:
			return "", fmt.Errorf("%w: %s is a symbolic link", ErrFileNotFound, cur)
		case n == len(parts)-1 && !info.Mode().IsRegular():
			return "", fmt.Errorf("%w: %s is not a regular file", ErrFileNotFound, cur)
		}
	}
	return target, nil
}

// contentTypes fixes the common types so that the answer does not depend on the host's MIME
// tables; other extensions fall back to mime.TypeByExtension.
var contentTypes = map[string]string{
	".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
	".webp": "image/webp", ".svg": "image/svg+xml", ".bmp": "image/bmp", ".ico": "image/x-icon",
	".avif": "image/avif", ".tif": "image/tiff", ".tiff": "image/tiff",
	".pdf": "application/pdf", ".csv": "text/csv; charset=utf-8", ".txt": "text/plain; charset=utf-8",
	".md": "text/markdown; charset=utf-8", ".json": "application/json", ".xml": "application/xml",
	".html": "text/html; charset=utf-8", ".htm": "text/html; charset=utf-8", ".zip": "application/zip",
	".mp3": "audio/mpeg", ".wav": "audio/wav", ".mp4": "video/mp4", ".webm": "video/webm",
	".docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
	".xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
	".pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
}

// ContentType is the Content-Type for a file name, from its extension (case-insensitive);
// unknown extensions give application/octet-stream.
func ContentType(name string) string {
	ext := strings.ToLower(path.Ext(name))
	if ct, ok := contentTypes[ext]; ok {
		return ct
	}
	if ext != "" {
		if ct := mime.TypeByExtension(ext); ct != "" {
			return ct
		}
	}
	return "application/octet-stream"
}

// ContentDisposition is the header of § 8.3, for an image/* contentType without download:
//
//	inline; filename*=UTF-8''<enc>
//
// and otherwise the same with attachment. name is reduced to its last path element and
// percent-encoded per RFC 8187 (every byte outside attr-char, uppercase hex). An empty name
// gives the disposition type alone.
func ContentDisposition(name string, download bool, contentType string) string {
	mediaType, _, _ := strings.Cut(contentType, ";")
	disposition := "attachment"
	if !download && strings.HasPrefix(strings.ToLower(strings.TrimSpace(mediaType)), "image/") {
		disposition = "inline"
	}
	base := path.Base(strings.ReplaceAll(name, "\\", "/"))
	if name == "" || base == "." || base == "/" {
		return disposition
	}
	return disposition + "; filename*=UTF-8''" + encodeRFC8187(base)
}

// encodeRFC8187 percent-encodes every byte that is not an attr-char.
func encodeRFC8187(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if isAttrChar(c) {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&0x0f])
	}
	return b.String()
}

func isAttrChar(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("!#$&+-.^_`|~", c) >= 0
}

package search

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
)

// The vector index as bytes (kept beside a book file, or in a store):
//
//	"AITEVEC1"                           8 bytes
//	header length                        uint32, little-endian
//	header                               JSON {"format", "version", "model", "dim", "count"}
//	count keys                           uint64 each, ascending
//	count × dim components               float32 each, in key order
//
// Decoding checks every size; a damaged or foreign file is an error
// wrapping ErrVectorFile, to be ignored and rebuilt.

// ErrVectorFile: bytes that are not a vector index this version reads.
var ErrVectorFile = errors.New("not a vector index")

const (
	vecMagic   = "AITEVEC1"
	vecFormat  = "aite-vectors"
	vecVersion = 1
)

type vecHeader struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
	Model   string `json:"model"`
	Dim     int    `json:"dim"`
	Count   int    `json:"count"`
}

// MarshalBinary encodes the index.
func (v *Vectors) MarshalBinary() ([]byte, error) {
	v.mu.RLock()
	defer v.mu.RUnlock()
	keys := make([]uint64, 0, len(v.vecs))
	for k := range v.vecs {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	h, err := json.Marshal(vecHeader{Format: vecFormat, Version: vecVersion, Model: v.model, Dim: v.dim, Count: len(keys)})
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.Grow(len(vecMagic) + 4 + len(h) + len(keys)*(8+4*v.dim))
	b.WriteString(vecMagic)
	_ = binary.Write(&b, binary.LittleEndian, uint32(len(h)))
	b.Write(h)
	var word [8]byte
	for _, k := range keys {
		binary.LittleEndian.PutUint64(word[:], k)
		b.Write(word[:])
	}
	for _, k := range keys {
		for _, f := range v.vecs[k] {
			binary.LittleEndian.PutUint32(word[:4], math.Float32bits(f))
			b.Write(word[:4])
		}
	}
	return b.Bytes(), nil
}

// UnmarshalVectors decodes an index encoded by MarshalBinary.
func UnmarshalVectors(data []byte) (*Vectors, error) {
	bad := func(why string, args ...any) (*Vectors, error) {
		return nil, fmt.Errorf("%w: %s", ErrVectorFile, fmt.Sprintf(why, args...))
	}
	if len(data) < len(vecMagic)+4 || string(data[:len(vecMagic)]) != vecMagic {
		return bad("no %s header", vecMagic)
	}
	n := int(binary.LittleEndian.Uint32(data[len(vecMagic):]))
	rest := data[len(vecMagic)+4:]
	if n > len(rest) {
		return bad("the header is cut")
	}
	var h vecHeader
	if err := json.Unmarshal(rest[:n], &h); err != nil || h.Format != vecFormat {
		return bad("the header is not %s", vecFormat)
	}
	if h.Version != vecVersion {
		return bad("version %d, not %d", h.Version, vecVersion)
	}
	rest = rest[n:]
	if h.Count < 0 || h.Dim < 0 || h.Count > 0 && h.Dim == 0 || len(rest) != h.Count*(8+4*h.Dim) {
		return bad("%d bytes for %d vectors of %d dimensions", len(rest), h.Count, h.Dim)
	}
	v := NewVectors(h.Model)
	v.dim = h.Dim
	comps := rest[8*h.Count:]
	for i := range h.Count {
		k := binary.LittleEndian.Uint64(rest[8*i:])
		x := make([]float32, h.Dim)
		for j := range x {
			x[j] = math.Float32frombits(binary.LittleEndian.Uint32(comps[4*(i*h.Dim+j):]))
		}
		v.vecs[k] = x
	}
	if len(v.vecs) != h.Count {
		return bad("a key is repeated")
	}
	return v, nil
}

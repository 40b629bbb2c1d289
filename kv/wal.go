package kv

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"sync"

	"github.com/kvenc/kvenc/blockenc"
)

// WAL record format, version 2 (see the package doc):
//
//	record := version u8 (=2) | seq u64 LE | count uv | op * count | crc32c u32 LE
//	op     := kind u8 | klen uv | key | [vlen uv | value] (Put and DeleteRange only)
//
// kind: 1 Put (the value), 0 Delete, 2 DeleteRange (key the start, value
// the end). Version 1 is the same without DeleteRange; it is still read.
// The record is stored in chunks of at most walChunk bytes under
// N+'w'+seq+chunk (N: the namespace) (chunk 0, 1, ...), all written in one Badger transaction.
const (
	walVersion   = 2
	walVersionV1 = 1
	walChunk     = 256 << 10
)

// The op kinds of a WAL record: part of the format, never reuse.
const (
	walDelete      = 0
	walPut         = 1
	walDeleteRange = 2
)

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// op is one Put, Delete or DeleteRange of a batch. A DeleteRange (ranged)
// deletes [key, value).
type op struct {
	key, value []byte
	kind       blockenc.Kind
	ranged     bool
}

// walKind is o's kind byte in a WAL record.
func (o op) walKind() byte {
	switch {
	case o.ranged:
		return walDeleteRange
	case o.kind == blockenc.KindPut:
		return walPut
	}
	return walDelete
}

// walSize returns the length of the WAL record of ops.
func walSize(ops []op) int {
	n := 1 + 8 + uvarintLen(uint64(len(ops))) + 4
	for _, o := range ops {
		n += 1 + uvarintLen(uint64(len(o.key))) + len(o.key)
		if o.walKind() != walDelete {
			n += uvarintLen(uint64(len(o.value))) + len(o.value)
		}
	}
	return n
}

// uvarintLen returns the length of x as a uvarint.
func uvarintLen(x uint64) int {
	n := 1
	for ; x >= 0x80; x >>= 7 {
		n++
	}
	return n
}

// walBufs holds record buffers for reuse: a record is dead once Badger's
// transaction that wrote it has committed.
var walBufs sync.Pool // *[]byte

// maxPooledWAL is the largest record buffer walBufs keeps.
const maxPooledWAL = 4 << 20

// getWALBuf returns an empty buffer with room for n bytes.
func getWALBuf(n int) *[]byte {
	if p, _ := walBufs.Get().(*[]byte); p != nil {
		if cap(*p) >= n {
			*p = (*p)[:0]
			return p
		}
		walBufs.Put(p)
	}
	b := make([]byte, 0, n)
	return &b
}

// putWALBuf returns a buffer from getWALBuf for reuse; nothing may hold it.
func putWALBuf(p *[]byte) {
	if cap(*p) <= maxPooledWAL {
		walBufs.Put(p)
	}
}

// appendWAL appends the WAL record of seq and ops to dst.
func appendWAL(dst []byte, seq uint64, ops []op) []byte {
	start := len(dst)
	dst = append(dst, walVersion)
	dst = binary.LittleEndian.AppendUint64(dst, seq)
	dst = binary.AppendUvarint(dst, uint64(len(ops)))
	for _, o := range ops {
		k := o.walKind()
		dst = append(dst, k)
		dst = binary.AppendUvarint(dst, uint64(len(o.key)))
		dst = append(dst, o.key...)
		if k != walDelete {
			dst = binary.AppendUvarint(dst, uint64(len(o.value)))
			dst = append(dst, o.value...)
		}
	}
	return binary.LittleEndian.AppendUint32(dst, crc32.Checksum(dst[start:], crcTable))
}

// decodeWAL parses a whole record. The ops alias rec.
func decodeWAL(rec []byte) (uint64, []op, error) {
	bad := func(off int, what string) error {
		return fmt.Errorf("%w: WAL record offset %d: %s", ErrCorrupt, off, what)
	}
	if len(rec) < 1+8+1+4 {
		return 0, nil, bad(0, fmt.Sprintf("%d bytes", len(rec)))
	}
	body := rec[:len(rec)-4]
	if got, want := crc32.Checksum(body, crcTable), binary.LittleEndian.Uint32(rec[len(body):]); got != want {
		return 0, nil, bad(len(body), fmt.Sprintf("checksum %#08x, trailer says %#08x", got, want))
	}
	version := body[0]
	if version != walVersion && version != walVersionV1 {
		return 0, nil, bad(0, fmt.Sprintf("version %d (this version reads 1 and 2)", version))
	}
	seq := binary.LittleEndian.Uint64(body[1:])
	p := 9
	n, w := binary.Uvarint(body[p:])
	if w <= 0 || n > uint64(len(body)) {
		return 0, nil, bad(p, "bad op count")
	}
	p += w
	ops := make([]op, 0, n)
	readBytes := func() ([]byte, bool) {
		l, w := binary.Uvarint(body[p:])
		if w <= 0 || l > uint64(len(body)-p-w) {
			return nil, false
		}
		p += w
		b := body[p : p+int(l) : p+int(l)]
		p += int(l)
		return b, true
	}
	for i := uint64(0); i < n; i++ {
		if p >= len(body) {
			return 0, nil, bad(p, "truncated op")
		}
		var o op
		k := body[p]
		switch {
		case k == walPut:
			o.kind = blockenc.KindPut
		case k == walDelete:
			o.kind = blockenc.KindDelete
		case k == walDeleteRange && version >= 2:
			o.kind, o.ranged = blockenc.KindDelete, true
		default:
			return 0, nil, bad(p, fmt.Sprintf("op kind %d (version %d)", k, version))
		}
		p++
		var ok bool
		if o.key, ok = readBytes(); !ok {
			return 0, nil, bad(p, "bad key length")
		}
		if k != walDelete {
			if o.value, ok = readBytes(); !ok {
				return 0, nil, bad(p, "bad value length")
			}
		}
		if o.ranged && bytes.Compare(o.key, o.value) >= 0 {
			return 0, nil, bad(p, fmt.Sprintf("empty range [%q, %q)", o.key, o.value))
		}
		ops = append(ops, o)
	}
	if p != len(body) {
		return 0, nil, bad(p, fmt.Sprintf("%d trailing bytes", len(body)-p))
	}
	return seq, ops, nil
}

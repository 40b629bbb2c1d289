package wal

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
//	record := version u8 (=2) | seq u64 LE | count uv | Op * count | crc32c u32 LE
//	Op     := kind u8 | klen uv | key | [vlen uv | value] (Put and DeleteRange only)
//
// kind: 1 Put (the value), 0 Delete, 2 DeleteRange (key the start, value
// the end). Version 1 is the same without DeleteRange; it is still read.
// The record is stored in chunks of at most Chunk bytes under
// N+'w'+seq+chunk (N: the namespace) (chunk 0, 1, ...), all written in one Badger transaction.
const (
	Version   = 2
	VersionV1 = 1
	Chunk     = 256 << 10
)

// The Op kinds of a WAL record: part of the format, never reuse.
const (
	kindDelete      = 0
	kindPut         = 1
	kindDeleteRange = 2
)

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// Op is one Put, Delete or DeleteRange of a batch. A DeleteRange (ranged)
// deletes [key, value).
type Op struct {
	Key, Value []byte
	Kind       blockenc.Kind
	Ranged     bool
}

// walKind is o's kind byte in a WAL record.
func (o Op) walKind() byte {
	switch {
	case o.Ranged:
		return kindDeleteRange
	case o.Kind == blockenc.KindPut:
		return kindPut
	}
	return kindDelete
}

// Size returns the length of the WAL record of ops.
func Size(ops []Op) int {
	n := 1 + 8 + uvarintLen(uint64(len(ops))) + 4
	for _, o := range ops {
		n += 1 + uvarintLen(uint64(len(o.Key))) + len(o.Key)
		if o.walKind() != kindDelete {
			n += uvarintLen(uint64(len(o.Value))) + len(o.Value)
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

// GetBuf returns an empty buffer with room for n bytes.
func GetBuf(n int) *[]byte {
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

// PutBuf returns a buffer from GetBuf for reuse; nothing may hold it.
func PutBuf(p *[]byte) {
	if cap(*p) <= maxPooledWAL {
		walBufs.Put(p)
	}
}

// Append appends the WAL record of seq and ops to dst.
func Append(dst []byte, seq uint64, ops []Op) []byte {
	start := len(dst)
	dst = AppendUnsealed(dst, ops)
	Seal(dst[start:], seq)
	return dst
}

// AppendUnsealed appends the WAL record of ops to dst without its seq and
// checksum: Seal the record (the Size(ops) bytes appended) before it is
// written.
func AppendUnsealed(dst []byte, ops []Op) []byte {
	dst = append(dst, Version)
	dst = binary.LittleEndian.AppendUint64(dst, 0)
	dst = binary.AppendUvarint(dst, uint64(len(ops)))
	for _, o := range ops {
		k := o.walKind()
		dst = append(dst, k)
		dst = binary.AppendUvarint(dst, uint64(len(o.Key)))
		dst = append(dst, o.Key...)
		if k != kindDelete {
			dst = binary.AppendUvarint(dst, uint64(len(o.Value)))
			dst = append(dst, o.Value...)
		}
	}
	return binary.LittleEndian.AppendUint32(dst, 0)
}

// Seal sets the seq of rec, a record from AppendUnsealed, and its
// checksum.
func Seal(rec []byte, seq uint64) {
	binary.LittleEndian.PutUint64(rec[1:], seq)
	body := rec[:len(rec)-4]
	binary.LittleEndian.PutUint32(rec[len(body):], crc32.Checksum(body, crcTable))
}

// SeqOf returns the seq of rec, a sealed record (Seal, Append).
func SeqOf(rec []byte) uint64 { return binary.LittleEndian.Uint64(rec[1:]) }

// Decode parses a whole record. The ops alias rec.
func Decode(rec []byte) (uint64, []Op, error) {
	bad := func(off int, what string) error {
		return fmt.Errorf("%w: WAL record offset %d: %s", blockenc.ErrCorrupt, off, what)
	}
	if len(rec) < 1+8+1+4 {
		return 0, nil, bad(0, fmt.Sprintf("%d bytes", len(rec)))
	}
	body := rec[:len(rec)-4]
	if got, want := crc32.Checksum(body, crcTable), binary.LittleEndian.Uint32(rec[len(body):]); got != want {
		return 0, nil, bad(len(body), fmt.Sprintf("checksum %#08x, trailer says %#08x", got, want))
	}
	version := body[0]
	if version != Version && version != VersionV1 {
		return 0, nil, bad(0, fmt.Sprintf("version %d (this version reads 1 and 2)", version))
	}
	seq := binary.LittleEndian.Uint64(body[1:])
	p := 9
	n, w := binary.Uvarint(body[p:])
	if w <= 0 || n > uint64(len(body)) {
		return 0, nil, bad(p, "bad Op count")
	}
	p += w
	ops := make([]Op, 0, n)
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
			return 0, nil, bad(p, "truncated Op")
		}
		var o Op
		k := body[p]
		switch {
		case k == kindPut:
			o.Kind = blockenc.KindPut
		case k == kindDelete:
			o.Kind = blockenc.KindDelete
		case k == kindDeleteRange && version >= 2:
			o.Kind, o.Ranged = blockenc.KindDelete, true
		default:
			return 0, nil, bad(p, fmt.Sprintf("Op kind %d (version %d)", k, version))
		}
		p++
		var ok bool
		if o.Key, ok = readBytes(); !ok {
			return 0, nil, bad(p, "bad key length")
		}
		if k != kindDelete {
			if o.Value, ok = readBytes(); !ok {
				return 0, nil, bad(p, "bad value length")
			}
		}
		if o.Ranged && bytes.Compare(o.Key, o.Value) >= 0 {
			return 0, nil, bad(p, fmt.Sprintf("empty range [%q, %q)", o.Key, o.Value))
		}
		ops = append(ops, o)
	}
	if p != len(body) {
		return 0, nil, bad(p, fmt.Sprintf("%d trailing bytes", len(body)-p))
	}
	return seq, ops, nil
}

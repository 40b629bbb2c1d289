package kv

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"

	"github.com/kvenc/kvenc/blockenc"
)

// WAL record format, version 1 (see the package doc):
//
//	record := version u8 (=1) | seq u64 LE | count uv | op * count | crc32c u32 LE
//	op     := kind u8 (1 Put, 0 Delete) | klen uv | key | [vlen uv | value] (Put only)
//
// The record is stored in chunks of at most walChunk bytes under
// N+'w'+seq+chunk (N: the namespace) (chunk 0, 1, ...), all written in one Badger transaction.
const (
	walVersion = 1
	walChunk   = 256 << 10
)

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// op is one Put or Delete of a batch.
type op struct {
	key, value []byte
	kind       blockenc.Kind
}

func appendWAL(dst []byte, seq uint64, ops []op) []byte {
	start := len(dst)
	dst = append(dst, walVersion)
	dst = binary.LittleEndian.AppendUint64(dst, seq)
	dst = binary.AppendUvarint(dst, uint64(len(ops)))
	for _, o := range ops {
		dst = append(dst, byte(o.kind))
		dst = binary.AppendUvarint(dst, uint64(len(o.key)))
		dst = append(dst, o.key...)
		if o.kind == blockenc.KindPut {
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
	if body[0] != walVersion {
		return 0, nil, bad(0, fmt.Sprintf("version %d", body[0]))
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
		o := op{kind: blockenc.Kind(body[p])}
		if !o.kind.IsValid() {
			return 0, nil, bad(p, fmt.Sprintf("kind %d", body[p]))
		}
		p++
		var ok bool
		if o.key, ok = readBytes(); !ok {
			return 0, nil, bad(p, "bad key length")
		}
		if o.kind == blockenc.KindPut {
			if o.value, ok = readBytes(); !ok {
				return 0, nil, bad(p, "bad value length")
			}
		}
		ops = append(ops, o)
	}
	if p != len(body) {
		return 0, nil, bad(p, fmt.Sprintf("%d trailing bytes", len(body)-p))
	}
	return seq, ops, nil
}

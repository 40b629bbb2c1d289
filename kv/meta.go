package kv

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
)

// Segment meta format, version 1 (see the package doc):
//
//	meta := version u8 (=1) | id u64 | walSeq u64 | minSeq u64 | maxSeq u64
//	        | blocks u64 | cells u64 | keys u64 | bytes u64
//	        | firstKeyLen uv | firstKey | lastKeyLen uv | lastKey | crc32c u32
//
// Integers are little-endian. walSeq: every write with a seq at or below it
// is in some segment, so Open replays only WAL records above the largest
// walSeq. keys: distinct keys (cells == keys: one version per key).
// bytes: the sum of the segment's block lengths.
const metaVersion = 1

type segMeta struct {
	id, walSeq, minSeq, maxSeq uint64
	blocks, cells, keys, bytes uint64
	firstKey, lastKey          []byte
}

func (m *segMeta) append(dst []byte) []byte {
	start := len(dst)
	dst = append(dst, metaVersion)
	for _, v := range []uint64{m.id, m.walSeq, m.minSeq, m.maxSeq, m.blocks, m.cells, m.keys, m.bytes} {
		dst = binary.LittleEndian.AppendUint64(dst, v)
	}
	dst = binary.AppendUvarint(dst, uint64(len(m.firstKey)))
	dst = append(dst, m.firstKey...)
	dst = binary.AppendUvarint(dst, uint64(len(m.lastKey)))
	dst = append(dst, m.lastKey...)
	return binary.LittleEndian.AppendUint32(dst, crc32.Checksum(dst[start:], crcTable))
}

// decodeMeta parses a meta; its keys are copies.
func decodeMeta(b []byte) (segMeta, error) {
	var m segMeta
	bad := func(off int, what string) error {
		return fmt.Errorf("%w: segment meta offset %d: %s", ErrCorrupt, off, what)
	}
	const fixed = 1 + 8*8
	if len(b) < fixed+2+4 {
		return m, bad(0, fmt.Sprintf("%d bytes", len(b)))
	}
	body := b[:len(b)-4]
	if got, want := crc32.Checksum(body, crcTable), binary.LittleEndian.Uint32(b[len(body):]); got != want {
		return m, bad(len(body), fmt.Sprintf("checksum %#08x, trailer says %#08x", got, want))
	}
	if body[0] != metaVersion {
		return m, bad(0, fmt.Sprintf("version %d", body[0]))
	}
	vs := []*uint64{&m.id, &m.walSeq, &m.minSeq, &m.maxSeq, &m.blocks, &m.cells, &m.keys, &m.bytes}
	for i, v := range vs {
		*v = binary.LittleEndian.Uint64(body[1+8*i:])
	}
	p := fixed
	for _, k := range []*[]byte{&m.firstKey, &m.lastKey} {
		l, w := binary.Uvarint(body[p:])
		if w <= 0 || l > uint64(len(body)-p-w) {
			return m, bad(p, "bad key length")
		}
		p += w
		*k = append([]byte{}, body[p:p+int(l)]...)
		p += int(l)
	}
	if p != len(body) {
		return m, bad(p, fmt.Sprintf("%d trailing bytes", len(body)-p))
	}
	return m, nil
}

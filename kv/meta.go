package kv

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
)

// Segment meta format, version 3 (see the package doc):
//
//	meta := version u8 (=3) | id u64 | walSeq u64 | minSeq u64 | maxSeq u64
//	        | blocks u64 | cells u64 | keys u64 | bytes u64
//	        | firstKeyLen uv | firstKey | lastKeyLen uv | lastKey
//	        | dels uv | del * dels | dictLen uv | dict | crc32c u32
//	del  := seq u64 | startLen uv | start | endLen uv | end
//
// Integers are little-endian. walSeq: every write with a seq at or below it
// is in some segment, so Open replays only WAL records above the largest
// walSeq. keys: distinct keys (cells == keys: one version per key).
// bytes: the sum of the segment's block lengths. del: a range tombstone
// [start, end) at seq, start < end, minSeq <= seq <= maxSeq, sorted by
// start, end, then seq descending. dict: the preset dictionary the
// segment's blocks are compressed against (blockenc.Dict), empty when they
// carry their own. Version 2 is version 3 without dictLen and dict, version
// 1 version 2 without the dels count and the dels; both are still read.
const (
	metaVersion   = 3
	metaVersionV2 = 2
	metaVersionV1 = 1
)

type segMeta struct {
	id, walSeq, minSeq, maxSeq uint64
	blocks, cells, keys, bytes uint64
	firstKey, lastKey          []byte
	dels                       []rangeDel
	dict                       []byte
}

func (m *segMeta) append(dst []byte) []byte {
	return m.appendVersion(dst, metaVersion)
}

// appendVersion appends m in format version v (1 and 2 only for tests:
// they cannot hold range tombstones or a dictionary).
func (m *segMeta) appendVersion(dst []byte, v byte) []byte {
	start := len(dst)
	dst = append(dst, v)
	for _, v := range []uint64{m.id, m.walSeq, m.minSeq, m.maxSeq, m.blocks, m.cells, m.keys, m.bytes} {
		dst = binary.LittleEndian.AppendUint64(dst, v)
	}
	dst = binary.AppendUvarint(dst, uint64(len(m.firstKey)))
	dst = append(dst, m.firstKey...)
	dst = binary.AppendUvarint(dst, uint64(len(m.lastKey)))
	dst = append(dst, m.lastKey...)
	if v >= 2 {
		dst = binary.AppendUvarint(dst, uint64(len(m.dels)))
		for _, d := range m.dels {
			dst = binary.LittleEndian.AppendUint64(dst, d.seq)
			dst = binary.AppendUvarint(dst, uint64(len(d.start)))
			dst = append(dst, d.start...)
			dst = binary.AppendUvarint(dst, uint64(len(d.end)))
			dst = append(dst, d.end...)
		}
	}
	if v >= 3 {
		dst = binary.AppendUvarint(dst, uint64(len(m.dict)))
		dst = append(dst, m.dict...)
	}
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
	version := body[0]
	if version < metaVersionV1 || version > metaVersion {
		return m, bad(0, fmt.Sprintf("version %d (this version reads 1 to %d)", version, metaVersion))
	}
	vs := []*uint64{&m.id, &m.walSeq, &m.minSeq, &m.maxSeq, &m.blocks, &m.cells, &m.keys, &m.bytes}
	for i, v := range vs {
		*v = binary.LittleEndian.Uint64(body[1+8*i:])
	}
	p := fixed
	readBytes := func(what string) ([]byte, error) {
		l, w := binary.Uvarint(body[p:])
		if w <= 0 || l > uint64(len(body)-p-w) {
			return nil, bad(p, "bad "+what+" length")
		}
		p += w
		k := append([]byte{}, body[p:p+int(l)]...)
		p += int(l)
		return k, nil
	}
	var err error
	if m.firstKey, err = readBytes("key"); err != nil {
		return m, err
	}
	if m.lastKey, err = readBytes("key"); err != nil {
		return m, err
	}
	if version >= metaVersionV2 {
		if m.dels, err = decodeMetaDels(body, &p, m.minSeq, m.maxSeq, bad); err != nil {
			return m, err
		}
	}
	if version >= 3 {
		if m.dict, err = readBytes("dictionary"); err != nil {
			return m, err
		}
		if len(m.dict) == 0 {
			m.dict = nil
		}
	}
	if p != len(body) {
		return m, bad(p, fmt.Sprintf("%d trailing bytes", len(body)-p))
	}
	return m, nil
}

// decodeMetaDels parses the range tombstones of a version 2 meta at *p.
func decodeMetaDels(body []byte, p *int, minSeq, maxSeq uint64, bad func(int, string) error) ([]rangeDel, error) {
	n, w := binary.Uvarint(body[*p:])
	const minDel = 8 + 1 + 1 + 1 // seq, two lengths, a non-empty end
	if w <= 0 || n > uint64(len(body)-*p-w)/minDel {
		return nil, bad(*p, "bad range tombstone count")
	}
	*p += w
	if n == 0 {
		return nil, nil
	}
	dels := make([]rangeDel, 0, n)
	for i := uint64(0); i < n; i++ {
		at := *p
		if len(body)-*p < 8 {
			return nil, bad(at, fmt.Sprintf("range tombstone %d truncated", i))
		}
		d := rangeDel{seq: binary.LittleEndian.Uint64(body[*p:])}
		*p += 8
		for _, k := range []*[]byte{&d.start, &d.end} {
			l, w := binary.Uvarint(body[*p:])
			if w <= 0 || l > uint64(len(body)-*p-w) {
				return nil, bad(*p, fmt.Sprintf("range tombstone %d: bad key length", i))
			}
			*p += w
			*k = append([]byte{}, body[*p:*p+int(l)]...)
			*p += int(l)
		}
		if bytes.Compare(d.start, d.end) >= 0 {
			return nil, bad(at, fmt.Sprintf("range tombstone %d: empty range [%q, %q)", i, d.start, d.end))
		}
		if d.seq < minSeq || d.seq > maxSeq {
			return nil, bad(at, fmt.Sprintf("range tombstone %d: seq %d outside the segment's seqs %d..%d", i, d.seq, minSeq, maxSeq))
		}
		dels = append(dels, d)
	}
	return dels, nil
}

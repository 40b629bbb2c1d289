package kv

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"

	"github.com/kvenc/kvenc/kv/internal/rangedel"
)

// Segment meta format, version 4 (see the package doc):
//
//	meta := version u8 (=4) | id u64 | walSeq u64 | minSeq u64 | maxSeq u64
//	        | blocks u64 | cells u64 | keys u64 | bytes u64
//	        | firstKeyLen uv | firstKey | lastKeyLen uv | lastKey
//	        | dels uv | del * dels | tombstones uv
//	        | settingsLen uv | settings | parts uv | part * parts | crc32c u32
//	del  := seq u64 | startLen uv | start | endLen uv | end
//	part := blocks uv | dictLen uv | dict
//
// Integers are little-endian. walSeq: every write with a seq at or below it
// is in some segment, so Open replays only WAL records above the largest
// walSeq. keys: distinct keys (cells == keys: one version per key).
// bytes: the sum of the segment's block lengths. del: a range tombstone
// [start, end) at seq, start < end, minSeq <= seq <= maxSeq, sorted by
// start, end, then seq descending. tombstones: the Delete cells among the
// cells. settings: how the blocks were encoded (blockSettings), compared
// by compaction to decide whether it can copy them. parts: runs of
// consecutive blocks, in block order, whose blocks sum to blocks, each
// with the preset dictionary its blocks are compressed against
// (blockenc.Dict), empty when they carry their own. Version 3 is version
// 4 without tombstones, settings and parts, and one dictLen and dict for
// every block (read as one part, never copied); version 2 is version 3
// without dictLen and dict, version 1 version 2 without the dels count and
// the dels. All are still read.
// crcTable is CRC-32C (Castagnoli), the checksum of the meta.
var crcTable = crc32.MakeTable(crc32.Castagnoli)

const (
	metaVersion   = 4
	metaVersionV3 = 3
	metaVersionV2 = 2
	metaVersionV1 = 1
)

type segMeta struct {
	id, walSeq, minSeq, maxSeq uint64
	blocks, cells, keys, bytes uint64
	firstKey, lastKey          []byte
	dels                       []rangedel.Tombstone
	tombstones                 uint64
	settings                   []byte // nil: unknown (version 3 and older)
	parts                      []segPart
}

// segPart is a run of blocks compressed against one dictionary (nil: the
// blocks carry their own).
type segPart struct {
	blocks uint64
	dict   []byte
}

func (m *segMeta) append(dst []byte) []byte {
	return m.appendVersion(dst, metaVersion)
}

// appendVersion appends m in format version v (1 to 3 only for tests:
// version 3 holds one part, version 2 and 1 no dictionary, version 1 no
// range tombstones).
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
			dst = binary.LittleEndian.AppendUint64(dst, d.Seq)
			dst = binary.AppendUvarint(dst, uint64(len(d.Start)))
			dst = append(dst, d.Start...)
			dst = binary.AppendUvarint(dst, uint64(len(d.End)))
			dst = append(dst, d.End...)
		}
	}
	switch {
	case v == metaVersionV3:
		var dict []byte
		if len(m.parts) > 0 {
			dict = m.parts[0].dict
		}
		dst = binary.AppendUvarint(dst, uint64(len(dict)))
		dst = append(dst, dict...)
	case v >= metaVersion:
		dst = binary.AppendUvarint(dst, m.tombstones)
		dst = binary.AppendUvarint(dst, uint64(len(m.settings)))
		dst = append(dst, m.settings...)
		dst = binary.AppendUvarint(dst, uint64(len(m.parts)))
		for _, pt := range m.parts {
			dst = binary.AppendUvarint(dst, pt.blocks)
			dst = binary.AppendUvarint(dst, uint64(len(pt.dict)))
			dst = append(dst, pt.dict...)
		}
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
	switch {
	case version < metaVersion:
		var dict []byte
		if version == metaVersionV3 {
			if dict, err = readBytes("dictionary"); err != nil {
				return m, err
			}
		}
		if len(dict) == 0 {
			dict = nil
		}
		m.parts = []segPart{{blocks: m.blocks, dict: dict}}
	default:
		if err := decodeMetaParts(body, &p, &m, readBytes, bad); err != nil {
			return m, err
		}
	}
	if p != len(body) {
		return m, bad(p, fmt.Sprintf("%d trailing bytes", len(body)-p))
	}
	return m, nil
}

// decodeMetaParts parses the tombstones, settings and parts of a version 4
// meta at *p.
func decodeMetaParts(body []byte, p *int, m *segMeta, readBytes func(string) ([]byte, error), bad func(int, string) error) error {
	uv := func(what string) (uint64, error) {
		v, w := binary.Uvarint(body[*p:])
		if w <= 0 {
			return 0, bad(*p, "bad "+what)
		}
		*p += w
		return v, nil
	}
	var err error
	if m.tombstones, err = uv("tombstone count"); err != nil {
		return err
	}
	if m.tombstones > m.cells {
		return bad(*p, fmt.Sprintf("%d tombstones in %d cells", m.tombstones, m.cells))
	}
	if m.settings, err = readBytes("settings"); err != nil {
		return err
	}
	if len(m.settings) == 0 {
		m.settings = nil
	}
	at := *p
	n, err := uv("part count")
	if err != nil {
		return err
	}
	const minPart = 2 // blocks, dictLen
	if n > uint64(len(body)-*p)/minPart {
		return bad(at, fmt.Sprintf("%d parts in %d bytes", n, len(body)-*p))
	}
	var sum uint64
	for i := uint64(0); i < n; i++ {
		at := *p
		var pt segPart
		if pt.blocks, err = uv("part block count"); err != nil {
			return err
		}
		if pt.blocks == 0 || pt.blocks > m.blocks-sum {
			return bad(at, fmt.Sprintf("part %d of %d blocks: %d of the segment's %d blocks are left", i, pt.blocks, m.blocks-sum, m.blocks))
		}
		sum += pt.blocks
		if pt.dict, err = readBytes("dictionary"); err != nil {
			return err
		}
		if len(pt.dict) == 0 {
			pt.dict = nil
		}
		m.parts = append(m.parts, pt)
	}
	if sum != m.blocks {
		return bad(*p, fmt.Sprintf("parts hold %d blocks, the segment %d", sum, m.blocks))
	}
	return nil
}

// decodeMetaDels parses the range tombstones of a version 2 meta at *p.
func decodeMetaDels(body []byte, p *int, minSeq, maxSeq uint64, bad func(int, string) error) ([]rangedel.Tombstone, error) {
	n, w := binary.Uvarint(body[*p:])
	const minDel = 8 + 1 + 1 + 1 // seq, two lengths, a non-empty end
	if w <= 0 || n > uint64(len(body)-*p-w)/minDel {
		return nil, bad(*p, "bad range tombstone count")
	}
	*p += w
	if n == 0 {
		return nil, nil
	}
	dels := make([]rangedel.Tombstone, 0, n)
	for i := uint64(0); i < n; i++ {
		at := *p
		if len(body)-*p < 8 {
			return nil, bad(at, fmt.Sprintf("range tombstone %d truncated", i))
		}
		d := rangedel.Tombstone{Seq: binary.LittleEndian.Uint64(body[*p:])}
		*p += 8
		for _, k := range []*[]byte{&d.Start, &d.End} {
			l, w := binary.Uvarint(body[*p:])
			if w <= 0 || l > uint64(len(body)-*p-w) {
				return nil, bad(*p, fmt.Sprintf("range tombstone %d: bad key length", i))
			}
			*p += w
			*k = append([]byte{}, body[*p:*p+int(l)]...)
			*p += int(l)
		}
		if bytes.Compare(d.Start, d.End) >= 0 {
			return nil, bad(at, fmt.Sprintf("range tombstone %d: empty range [%q, %q)", i, d.Start, d.End))
		}
		if d.Seq < minSeq || d.Seq > maxSeq {
			return nil, bad(at, fmt.Sprintf("range tombstone %d: seq %d outside the segment's seqs %d..%d", i, d.Seq, minSeq, maxSeq))
		}
		dels = append(dels, d)
	}
	return dels, nil
}

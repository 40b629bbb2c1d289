package segment

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"

	"github.com/kvenc/kvenc/blockenc"
	"github.com/kvenc/kvenc/kv/internal/bloom"
	"github.com/kvenc/kvenc/kv/internal/rangedel"
)

// Segment meta format, version 6 (see the package doc):
//
//	meta := version u8 (=6) | id u64 | walSeq u64 | minSeq u64 | maxSeq u64
//	        | blocks u64 | cells u64 | keys u64 | bytes u64
//	        | firstKeyLen uv | firstKey | lastKeyLen uv | lastKey
//	        | dels uv | del * dels | tombstones uv
//	        | settingsLen uv | settings | parts uv | part * parts
//	        | filters uv | filter * filters | crc32c u32
//	del    := seq u64 | startLen uv | start | endLen uv | end
//	part   := blocks uv | dictLen uv | [dictID u32, when dictLen > 0]
//	filter := blocks uv | filterLen uv | [filterID u32, when filterLen > 0]
//
// Integers are little-endian. walSeq: every write with a seq at or below it
// is in some Segment, so Open replays only WAL records above the largest
// walSeq. keys: distinct keys (cells == keys: one version per key).
// bytes: the sum of the segment's block lengths. del: a range tombstone
// [start, end) at seq, start < end, minSeq <= seq <= maxSeq, sorted by
// start, end, then seq descending. tombstones: the Delete cells among the
// cells. settings: how the blocks were encoded (blockSettings), compared
// by compaction to decide whether it can copy them. parts: runs of
// consecutive blocks, in block order, whose blocks sum to blocks, each
// with the length and ID (CRC-32C) of the preset dictionary its blocks
// are compressed against (blockenc.Dict), stored under a key of its own
// (SetDict checks it), dictLen 0 when they carry their own. filters:
// runs of consecutive blocks, in block order, whose blocks sum to blocks
// (none: no filter), each with the length and ID (CRC-32C) of the key
// filter of its cells' keys (package bloom), stored under a key of its
// own (SetFilter checks it). Version 5 is version 6 without filters.
// Version 4 is
// version 5 with each part's dictionary inline (dictLen bytes of dict
// instead of dictID). Version 3 is version 4 without tombstones, settings
// and parts, and one dictLen and dict for every block (read as one part,
// never copied); version 2 is version 3 without dictLen and dict, version
// 1 version 2 without the dels count and the dels. All are still read.
// crcTable is CRC-32C (Castagnoli), the checksum of the meta.
var crcTable = crc32.MakeTable(crc32.Castagnoli)

const (
	MetaVersion   = 6
	metaVersionV5 = 5
	metaVersionV4 = 4
	metaVersionV3 = 3
	metaVersionV2 = 2
	metaVersionV1 = 1
)

type Meta struct {
	ID, WALSeq, MinSeq, MaxSeq uint64
	Blocks, Cells, Keys, Bytes uint64
	FirstKey, LastKey          []byte
	Dels                       []rangedel.Tombstone
	Tombstones                 uint64
	Settings                   []byte // nil: unknown (version 3 and older)
	Parts                      []Part
	// Filters cut the blocks into runs, each with the key filter of its
	// cells' keys (package bloom); nil in metas before version 6 (no
	// filter: every block is searched).
	Filters []FilterRun
}

// FilterRun is a run of blocks whose keys one filter holds (Len 0: none,
// the run's blocks are searched for every key).
type FilterRun struct {
	Blocks uint64
	Len    uint64 // the filter's length in bytes
	ID     uint32 // its CRC-32C
	// Filter is the filter's bytes: nil as decoded, until SetFilter gives
	// it the bytes stored under the run's key.
	Filter []byte
}

// NewFilterRun returns the run of blocks blocks whose key filter is f
// (nil: none).
func NewFilterRun(blocks uint64, f []byte) FilterRun {
	r := FilterRun{Blocks: blocks}
	r.Filter, r.Len, r.ID = stored(f)
	return r
}

// stored returns b (nil when empty), its length and its CRC-32C (0 when
// empty): what a meta records of bytes under a key of their own.
func stored(b []byte) ([]byte, uint64, uint32) {
	if len(b) == 0 {
		return nil, 0, 0
	}
	return b, uint64(len(b)), crc32.Checksum(b, crcTable)
}

// checkStored checks b, read from the key of a what, against the length
// n and CRC-32C id that the meta records.
func checkStored(b []byte, n uint64, id uint32, what string) error {
	if got := crc32.Checksum(b, crcTable); uint64(len(b)) != n || got != id {
		return fmt.Errorf("%w: %s of %d bytes, CRC-32C %#08x: the meta says %d bytes, %#08x",
			blockenc.ErrCorrupt, what, len(b), got, n, id)
	}
	return nil
}

// SetFilter gives r its filter b, read from the run's key, after checking
// its length and ID against the meta's and its format (bloom.Decode).
func (r *FilterRun) SetFilter(b []byte) error {
	if err := checkStored(b, r.Len, r.ID, "key filter"); err != nil {
		return err
	}
	if _, err := bloom.Decode(b); err != nil {
		return err
	}
	r.Filter = b
	return nil
}

// NeedsFilter reports whether r has a filter that it does not hold yet
// (SetFilter).
func (r *FilterRun) NeedsFilter() bool { return r.Len > 0 && r.Filter == nil }

// Part is a run of blocks compressed against one dictionary (DictLen 0:
// the blocks carry their own).
type Part struct {
	Blocks  uint64
	DictLen uint64 // the dictionary's length in bytes
	DictID  uint32 // its CRC-32C (blockenc.Dict.ID)
	// Dict is the dictionary's bytes: nil in a version 5 meta as decoded,
	// until SetDict gives it the bytes stored under the part's key.
	Dict []byte
}

// NewPart returns the part of blocks blocks compressed against dict (nil:
// none).
func NewPart(blocks uint64, dict []byte) Part {
	p := Part{Blocks: blocks}
	p.Dict, p.DictLen, p.DictID = stored(dict)
	return p
}

// SetDict gives p its dictionary b, read from the part's key, after
// checking its length and ID against the meta's.
func (p *Part) SetDict(b []byte) error {
	if err := checkStored(b, p.DictLen, p.DictID, "dictionary"); err != nil {
		return err
	}
	p.Dict = b
	return nil
}

// NeedsDict reports whether p's blocks are compressed against a
// dictionary that p does not hold yet (SetDict).
func (p *Part) NeedsDict() bool { return p.DictLen > 0 && p.Dict == nil }

// StoredBytes is what m's segment keeps in the engine in the current
// format: its blocks, its meta, its parts' dictionaries and its key
// filters.
func (m *Meta) StoredBytes() int64 {
	n := int64(m.Bytes) + int64(len(m.Append(nil)))
	for _, pt := range m.Parts {
		n += int64(pt.DictLen)
	}
	for _, r := range m.Filters {
		n += int64(r.Len)
	}
	return n
}

// Append appends m, in the current format version.
func (m *Meta) Append(dst []byte) []byte {
	return m.AppendVersion(dst, MetaVersion)
}

// AppendVersion appends m in format version v (1 to 5 only for tests:
// version 5 has no filters, version 4 holds the dictionaries inline, version 3 one part, version 2
// and 1 no dictionary, version 1 no range tombstones).
func (m *Meta) AppendVersion(dst []byte, v byte) []byte {
	start := len(dst)
	dst = append(dst, v)
	for _, v := range []uint64{m.ID, m.WALSeq, m.MinSeq, m.MaxSeq, m.Blocks, m.Cells, m.Keys, m.Bytes} {
		dst = binary.LittleEndian.AppendUint64(dst, v)
	}
	dst = binary.AppendUvarint(dst, uint64(len(m.FirstKey)))
	dst = append(dst, m.FirstKey...)
	dst = binary.AppendUvarint(dst, uint64(len(m.LastKey)))
	dst = append(dst, m.LastKey...)
	if v >= 2 {
		dst = binary.AppendUvarint(dst, uint64(len(m.Dels)))
		for _, d := range m.Dels {
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
		if len(m.Parts) > 0 {
			dict = m.Parts[0].Dict
		}
		dst = binary.AppendUvarint(dst, uint64(len(dict)))
		dst = append(dst, dict...)
	case v >= metaVersionV4:
		dst = binary.AppendUvarint(dst, m.Tombstones)
		dst = binary.AppendUvarint(dst, uint64(len(m.Settings)))
		dst = append(dst, m.Settings...)
		dst = binary.AppendUvarint(dst, uint64(len(m.Parts)))
		for _, pt := range m.Parts {
			if v == metaVersionV4 {
				dst = binary.AppendUvarint(dst, pt.Blocks)
				dst = binary.AppendUvarint(dst, uint64(len(pt.Dict)))
				dst = append(dst, pt.Dict...)
				continue
			}
			dst = appendRun(dst, pt.Blocks, pt.DictLen, pt.DictID)
		}
		if v >= MetaVersion {
			dst = binary.AppendUvarint(dst, uint64(len(m.Filters)))
			for _, r := range m.Filters {
				dst = appendRun(dst, r.Blocks, r.Len, r.ID)
			}
		}
	}
	return binary.LittleEndian.AppendUint32(dst, crc32.Checksum(dst[start:], crcTable))
}

// appendRun appends a part or a filter run: blocks uv | len uv | [id u32,
// when len > 0].
func appendRun(dst []byte, blocks, n uint64, id uint32) []byte {
	dst = binary.AppendUvarint(dst, blocks)
	dst = binary.AppendUvarint(dst, n)
	if n > 0 {
		dst = binary.LittleEndian.AppendUint32(dst, id)
	}
	return dst
}

// Replaced is the value a compaction writes under the meta keys of the
// segments it replaces: one byte 00, never a meta (whose first byte is its
// version, 1 or more), and never empty, which some engines cannot store.
var Replaced = []byte{0}

// IsReplaced reports whether v, the value under a meta key, marks a
// segment a compaction replaced (Replaced; empty in stores written before
// the marker had its byte).
func IsReplaced(v []byte) bool { return len(v) == 0 || (len(v) == 1 && v[0] == 0) }

// DecodeMeta parses a meta; its keys are copies.
func DecodeMeta(b []byte) (Meta, error) {
	var m Meta
	bad := func(off int, what string) error {
		return fmt.Errorf("%w: segment meta offset %d: %s", blockenc.ErrCorrupt, off, what)
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
	if version < metaVersionV1 || version > MetaVersion {
		return m, bad(0, fmt.Sprintf("version %d (this version reads 1 to %d)", version, MetaVersion))
	}
	vs := []*uint64{&m.ID, &m.WALSeq, &m.MinSeq, &m.MaxSeq, &m.Blocks, &m.Cells, &m.Keys, &m.Bytes}
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
	if m.FirstKey, err = readBytes("key"); err != nil {
		return m, err
	}
	if m.LastKey, err = readBytes("key"); err != nil {
		return m, err
	}
	if version >= metaVersionV2 {
		if m.Dels, err = decodeDels(body, &p, m.MinSeq, m.MaxSeq, bad); err != nil {
			return m, err
		}
	}
	switch {
	case version < metaVersionV4:
		var dict []byte
		if version == metaVersionV3 {
			if dict, err = readBytes("dictionary"); err != nil {
				return m, err
			}
			if len(dict) > blockenc.MaxDictSize {
				return m, bad(p, fmt.Sprintf("dictionary of %d bytes (at most %d)", len(dict), blockenc.MaxDictSize))
			}
		}
		m.Parts = []Part{NewPart(m.Blocks, dict)}
	default:
		if err := decodeParts(body, &p, &m, version, readBytes, bad); err != nil {
			return m, err
		}
	}
	if p != len(body) {
		return m, bad(p, fmt.Sprintf("%d trailing bytes", len(body)-p))
	}
	return m, nil
}

// decodeParts parses the tombstones, settings and parts of a version 4 or
// later meta at *p, and the filters of a version 6 one.
func decodeParts(body []byte, p *int, m *Meta, version byte, readBytes func(string) ([]byte, error), bad func(int, string) error) error {
	uv := func(what string) (uint64, error) {
		v, w := binary.Uvarint(body[*p:])
		if w <= 0 {
			return 0, bad(*p, "bad "+what)
		}
		*p += w
		return v, nil
	}
	var err error
	if m.Tombstones, err = uv("tombstone count"); err != nil {
		return err
	}
	if m.Tombstones > m.Cells {
		return bad(*p, fmt.Sprintf("%d tombstones in %d cells", m.Tombstones, m.Cells))
	}
	if m.Settings, err = readBytes("settings"); err != nil {
		return err
	}
	if len(m.Settings) == 0 {
		m.Settings = nil
	}
	if version == metaVersionV4 {
		return decodeRuns(body, p, m.Blocks, "part", uv, bad, func(blocks uint64, at int) error {
			dict, err := readBytes("dictionary")
			if err != nil {
				return err
			}
			if len(dict) > blockenc.MaxDictSize {
				return bad(at, fmt.Sprintf("part %d: dictionary of %d bytes (at most %d)", len(m.Parts), len(dict), blockenc.MaxDictSize))
			}
			m.Parts = append(m.Parts, NewPart(blocks, dict))
			return nil
		})
	}
	// A part and a filter run: blocks uv | len uv | [id u32, when len > 0].
	lenID := func(what string, limit uint64) (uint64, uint32, error) {
		at := *p
		n, err := uv(what + " length")
		if err != nil {
			return 0, 0, err
		}
		if n > limit {
			return 0, 0, bad(at, fmt.Sprintf("%s of %d bytes (at most %d)", what, n, limit))
		}
		if n == 0 {
			return 0, 0, nil
		}
		if len(body)-*p < 4 {
			return 0, 0, bad(*p, what+" ID truncated")
		}
		id := binary.LittleEndian.Uint32(body[*p:])
		*p += 4
		return n, id, nil
	}
	err = decodeRuns(body, p, m.Blocks, "part", uv, bad, func(blocks uint64, _ int) error {
		pt := Part{Blocks: blocks}
		var err error
		pt.DictLen, pt.DictID, err = lenID("dictionary", blockenc.MaxDictSize)
		m.Parts = append(m.Parts, pt)
		return err
	})
	if err != nil || version < MetaVersion {
		return err
	}
	return decodeRuns(body, p, m.Blocks, "filter run", uv, bad, func(blocks uint64, _ int) error {
		r := FilterRun{Blocks: blocks}
		var err error
		r.Len, r.ID, err = lenID("key filter", maxFilterLen)
		m.Filters = append(m.Filters, r)
		return err
	})
}

// maxFilterLen bounds a key filter's length in a meta: engines keep
// values of at most a few GiB.
const maxFilterLen = 1 << 32

// decodeRuns parses a count of runs of blocks at *p and calls run on each
// after its block count, which must be at least 1 and, summed over the
// runs, equal blocks. An empty list is allowed only when blocks is 0 or
// what is a filter run (no filter).
func decodeRuns(body []byte, p *int, blocks uint64, what string, uv func(string) (uint64, error), bad func(int, string) error, run func(blocks uint64, at int) error) error {
	at := *p
	n, err := uv(what + " count")
	if err != nil {
		return err
	}
	const minRun = 2 // blocks, len
	if n > uint64(len(body)-*p)/minRun {
		return bad(at, fmt.Sprintf("%d %ss in %d bytes", n, what, len(body)-*p))
	}
	if n == 0 && what != "part" {
		return nil
	}
	var sum uint64
	for i := uint64(0); i < n; i++ {
		at := *p
		b, err := uv(what + " block count")
		if err != nil {
			return err
		}
		if b == 0 || b > blocks-sum {
			return bad(at, fmt.Sprintf("%s %d of %d blocks: %d of the segment's %d blocks are left", what, i, b, blocks-sum, blocks))
		}
		sum += b
		if err := run(b, at); err != nil {
			return err
		}
	}
	if sum != blocks {
		return bad(*p, fmt.Sprintf("%ss hold %d blocks, the segment %d", what, sum, blocks))
	}
	return nil
}

// decodeDels parses the range tombstones of a version 2 meta at *p.
func decodeDels(body []byte, p *int, minSeq, maxSeq uint64, bad func(int, string) error) ([]rangedel.Tombstone, error) {
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

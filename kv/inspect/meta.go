package inspect

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"

	"github.com/kvenc/kvenc/blockenc"
)

// Meta is a segment meta (kv's doc, Segment meta).
type Meta struct {
	Version                    int
	ID, WALSeq, MinSeq, MaxSeq uint64
	Blocks, Cells, Keys, Bytes uint64
	FirstKey, LastKey          []byte
	Dels                       []RangeDel
	Tombstones                 uint64
	Settings                   []byte // nil: unknown (version 3 and older)
	Parts                      []Part
}

// RangeDel is a range tombstone: it deletes the versions below Seq of
// every key in [Start, End).
type RangeDel struct {
	Seq        uint64
	Start, End []byte
}

// Part is a run of blocks compressed against one dictionary (nil: the
// blocks carry their own).
type Part struct {
	Blocks uint64
	Dict   []byte
}

// BlockSettings is how a segment's blocks were made (a version 4 meta's
// settings).
type BlockSettings struct {
	Encoding         blockenc.Encoding
	Compression      blockenc.Compression
	CompressionLevel int
	DedupeValues     bool
	IntValues        bool
	RestartInterval  int
	BlockSize        int
	DictSize         int // -1: no segment dictionaries
}

// BlockSettings decodes m's settings (ok false when the meta records
// none).
//
//	settings := version u8 (=1) | encoding u8 | compression u8 | level u8
//	            | flags u8 | restartInterval uv | blockSize uv | dictSize+1 uv
func (m *Meta) BlockSettings() (_ BlockSettings, ok bool, _ error) {
	b := m.Settings
	if b == nil {
		return BlockSettings{}, false, nil
	}
	if len(b) < 8 || b[0] != 1 {
		return BlockSettings{}, false, fmt.Errorf("%w: segment %d settings %x", ErrFormat, m.ID, b)
	}
	s := BlockSettings{Encoding: blockenc.Encoding(b[1]), Compression: blockenc.Compression(b[2]), CompressionLevel: int(b[3]),
		DedupeValues: b[4]&1 != 0, IntValues: b[4]&2 != 0}
	p := 5
	for _, v := range []*int{&s.RestartInterval, &s.BlockSize, &s.DictSize} {
		x, n := binary.Uvarint(b[p:])
		if n <= 0 || x > 1<<31 {
			return BlockSettings{}, false, fmt.Errorf("%w: segment %d settings %x", ErrCorrupt, m.ID, b)
		}
		*v, p = int(x), p+n
	}
	s.DictSize--
	return s, true, nil
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// decodeMeta decodes a segment meta of versions 1 to 4.
func decodeMeta(b []byte) (Meta, error) {
	var m Meta
	if len(b) < 1+64+4 {
		return m, fmt.Errorf("%w: segment meta of %d bytes", ErrCorrupt, len(b))
	}
	body := b[:len(b)-4]
	if got, want := crc32.Checksum(body, castagnoli), binary.LittleEndian.Uint32(b[len(body):]); got != want {
		return m, fmt.Errorf("%w: segment meta offset %d: checksum %#08x, trailer says %#08x", ErrCorrupt, len(body), got, want)
	}
	c := &cursor{b: body}
	m.Version = c.u8()
	if m.Version < 1 || m.Version > 4 {
		return m, fmt.Errorf("%w: segment meta version %d (this kvenc reads 1 to 4)", ErrFormat, m.Version)
	}
	for _, v := range []*uint64{&m.ID, &m.WALSeq, &m.MinSeq, &m.MaxSeq, &m.Blocks, &m.Cells, &m.Keys, &m.Bytes} {
		*v = c.u64()
	}
	m.FirstKey, m.LastKey = c.bytes(), c.bytes()
	if m.Version >= 2 {
		n := c.uv()
		for i := uint64(0); i < n && c.err == nil; i++ {
			m.Dels = append(m.Dels, RangeDel{Seq: c.u64(), Start: c.bytes(), End: c.bytes()})
		}
	}
	switch m.Version {
	case 3:
		m.Parts = []Part{{Blocks: m.Blocks, Dict: c.bytes()}}
	case 4:
		m.Tombstones = c.uv()
		m.Settings = c.bytes()
		n := c.uv()
		var sum uint64
		for i := uint64(0); i < n && c.err == nil; i++ {
			pt := Part{Blocks: c.uv(), Dict: c.bytes()}
			sum += pt.Blocks
			m.Parts = append(m.Parts, pt)
		}
		if c.err == nil && sum != m.Blocks {
			c.fail("parts hold %d blocks of %d", sum, m.Blocks)
		}
	default:
		m.Parts = []Part{{Blocks: m.Blocks}}
	}
	if c.err == nil && c.p != len(body) {
		c.fail("%d trailing bytes", len(body)-c.p)
	}
	for i, d := range m.Dels {
		if c.err == nil && (bytes.Compare(d.Start, d.End) >= 0 || d.Seq < m.MinSeq || d.Seq > m.MaxSeq) {
			c.fail("range tombstone %d", i)
		}
	}
	for i := range m.Parts {
		if len(m.Parts[i].Dict) == 0 {
			m.Parts[i].Dict = nil
		}
	}
	if len(m.Settings) == 0 {
		m.Settings = nil
	}
	return m, c.err
}

// cursor reads a meta's fields, bounds-checked; the first failure sticks.
type cursor struct {
	b   []byte
	p   int
	err error
}

func (c *cursor) fail(format string, args ...any) {
	if c.err == nil {
		c.err = fmt.Errorf("%w: segment meta offset %d: %s", ErrCorrupt, c.p, fmt.Sprintf(format, args...))
	}
}

func (c *cursor) take(n uint64) []byte {
	if c.err != nil || n > uint64(len(c.b)-c.p) {
		c.fail("%d bytes wanted", n)
		return nil
	}
	b := c.b[c.p : c.p+int(n)]
	c.p += int(n)
	return b
}

func (c *cursor) u8() int {
	if b := c.take(1); b != nil {
		return int(b[0])
	}
	return 0
}

func (c *cursor) u64() uint64 {
	if b := c.take(8); b != nil {
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}

func (c *cursor) uv() uint64 {
	if c.err != nil {
		return 0
	}
	v, n := binary.Uvarint(c.b[c.p:])
	if n <= 0 {
		c.fail("bad varint")
		return 0
	}
	c.p += n
	return v
}

func (c *cursor) bytes() []byte { return bytes.Clone(c.take(c.uv())) }

package inspect

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"

	"github.com/kvenc/kvenc/blockenc"
	"github.com/kvenc/kvenc/kv/internal/segment"
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
	// Filters are the runs of blocks whose keys one key filter holds
	// (version 6; none before: every block is searched).
	Filters []FilterRun
}

// FilterRun is a run of blocks whose cells' keys one key filter holds.
// Len and ID are the filter's length and CRC-32C as the meta records them
// (Len 0: the run has none); Filter its bytes, from the run's own key.
type FilterRun struct {
	Blocks uint64
	Len    uint64
	ID     uint32
	Filter []byte
}

// RangeDel is a range tombstone: it deletes the versions below Seq of
// every key in [Start, End).
type RangeDel struct {
	Seq        uint64
	Start, End []byte
}

// Part is a run of blocks compressed against one dictionary (nil: the
// blocks carry their own). DictLen and DictID are the dictionary's length
// and CRC-32C as the meta records them; Dict its bytes, from the meta
// (version 4 and older) or from the part's own key (version 5).
type Part struct {
	Blocks  uint64
	DictLen uint64
	DictID  uint32
	Dict    []byte
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

// decodeMeta decodes a segment meta with kv's decoder, and tells a meta
// of a version this kvenc does not know (ErrFormat) from a corrupt one.
func decodeMeta(b []byte) (Meta, error) {
	sm, err := segment.DecodeMeta(b)
	if err != nil {
		if len(b) > 4 && int(b[0]) > segment.MetaVersion && crc32.Checksum(b[:len(b)-4], castagnoli) == binary.LittleEndian.Uint32(b[len(b)-4:]) {
			return Meta{}, fmt.Errorf("%w: segment meta version %d (this kvenc reads 1 to %d)", ErrFormat, b[0], segment.MetaVersion)
		}
		return Meta{}, err
	}
	m := Meta{Version: int(b[0]), ID: sm.ID, WALSeq: sm.WALSeq, MinSeq: sm.MinSeq, MaxSeq: sm.MaxSeq,
		Blocks: sm.Blocks, Cells: sm.Cells, Keys: sm.Keys, Bytes: sm.Bytes, FirstKey: sm.FirstKey, LastKey: sm.LastKey,
		Tombstones: sm.Tombstones, Settings: sm.Settings}
	for _, d := range sm.Dels {
		m.Dels = append(m.Dels, RangeDel{Seq: d.Seq, Start: d.Start, End: d.End})
	}
	for _, pt := range sm.Parts {
		m.Parts = append(m.Parts, Part{Blocks: pt.Blocks, DictLen: pt.DictLen, DictID: pt.DictID, Dict: pt.Dict})
	}
	for _, r := range sm.Filters {
		m.Filters = append(m.Filters, FilterRun{Blocks: r.Blocks, Len: r.Len, ID: r.ID})
	}
	return m, nil
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

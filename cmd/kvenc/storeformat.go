package main

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
)

// The store formats kv's package doc specifies (key layout 2, segment
// meta versions 1-4, WAL record versions 1-2, WAL file version 1), read
// as that doc draws them.

var (
	errCorrupt = errors.New("kvenc: corrupt store data")
	errFormat  = errors.New("kvenc: unknown format version")
	errNoStore = errors.New("kvenc: not a kvenc store")
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Key layout 2: N = Prefix + 00, then a tag.
const (
	separator  = 0x00
	tagWAL     = 'w' // N 'w' seq u64 BE chunk u16 BE -> WAL record chunk
	tagSegment = 's' // N 's' id u64 BE last key -> block
	tagMeta    = 'm' // N 'm' id u64 BE -> segment meta
	keyLayout  = 2   // the registry entry's value
	metaMax    = 4   // the newest segment meta version
	walFileVer = 1
	walMagic   = "kvencWAL"
)

// segMeta is a segment meta (kv's doc, Segment meta).
type segMeta struct {
	version                    int
	id, walSeq, minSeq, maxSeq uint64
	blocks, cells, keys, bytes uint64
	firstKey, lastKey          []byte
	dels                       []rangeDel
	tombstones                 uint64
	settings                   []byte // version 4
	parts                      []segPart
}

type rangeDel struct {
	seq        uint64
	start, end []byte
}

type segPart struct {
	blocks uint64
	dict   []byte
}

// crcBody checks b's trailing CRC-32C (little-endian) and returns the
// bytes before it.
func crcBody(b []byte, what string) ([]byte, error) {
	if len(b) < 4 {
		return nil, fmt.Errorf("%w: %s of %d bytes", errCorrupt, what, len(b))
	}
	body := b[:len(b)-4]
	if got, want := crc32.Checksum(body, castagnoli), uint32(b[len(body)])|uint32(b[len(body)+1])<<8|uint32(b[len(body)+2])<<16|uint32(b[len(body)+3])<<24; got != want {
		return nil, fmt.Errorf("%w: %s offset %d: checksum %#08x, trailer says %#08x", errCorrupt, what, len(body), got, want)
	}
	return body, nil
}

func decodeMeta(b []byte) (*segMeta, error) {
	body, err := crcBody(b, "segment meta")
	if err != nil {
		return nil, err
	}
	c := &cursor{b: body, corrupt: errCorrupt, base: "segment meta "}
	m := &segMeta{version: c.u8()}
	if m.version < 1 || m.version > metaMax {
		return nil, fmt.Errorf("%w: segment meta version %d (this kvenc reads 1 to %d)", errFormat, m.version, metaMax)
	}
	for _, v := range []*uint64{&m.id, &m.walSeq, &m.minSeq, &m.maxSeq, &m.blocks, &m.cells, &m.keys, &m.bytes} {
		*v = c.u64()
	}
	m.firstKey, m.lastKey = c.bytes(), c.bytes()
	if m.version >= 2 {
		n := c.uv()
		for i := 0; i < n && c.err == nil; i++ {
			m.dels = append(m.dels, rangeDel{seq: c.u64(), start: c.bytes(), end: c.bytes()})
		}
	}
	switch m.version {
	case 3:
		m.parts = []segPart{{blocks: m.blocks, dict: c.bytes()}}
	case 4:
		m.tombstones = c.uv64()
		m.settings = c.bytes()
		n := c.uv()
		var sum uint64
		for i := 0; i < n && c.err == nil; i++ {
			pt := segPart{blocks: c.uv64(), dict: c.bytes()}
			sum += pt.blocks
			m.parts = append(m.parts, pt)
		}
		if c.err == nil && sum != m.blocks {
			c.fail("parts hold %d blocks of %d", sum, m.blocks)
		}
	default:
		m.parts = []segPart{{blocks: m.blocks}}
	}
	if c.err == nil && c.p != len(body) {
		c.fail("%d trailing bytes", len(body)-c.p)
	}
	for i, d := range m.dels {
		if c.err == nil && (bytes.Compare(d.start, d.end) >= 0 || d.seq < m.minSeq || d.seq > m.maxSeq) {
			c.fail("range tombstone %d: [%q, %q) at seq %d", i, d.start, d.end, d.seq)
		}
	}
	return m, c.err
}

// settingsOf describes a version 4 meta's settings (kv's doc):
// version u8 | encoding u8 | compression u8 | level u8 | flags u8 |
// restartInterval uv | blockSize uv | dictSize+1 uv.
type blockSettings struct {
	encoding, compression, level, flags int
	interval, blockSize                 int
	dictSize                            int // -1: no segment dictionaries
}

func decodeSettings(b []byte) (blockSettings, error) {
	c := &cursor{b: b, corrupt: errCorrupt, base: "settings "}
	if v := c.u8(); c.err == nil && v != 1 {
		return blockSettings{}, fmt.Errorf("%w: segment settings version %d (this kvenc reads 1)", errFormat, v)
	}
	s := blockSettings{encoding: c.u8(), compression: c.u8(), level: c.u8(), flags: c.u8(), interval: c.uv(), blockSize: c.uv(), dictSize: c.uv() - 1}
	return s, c.err
}

// walRecord is what a WAL record holds (kv's doc, WAL record).
type walRecord struct {
	version               int
	seq                   uint64
	puts, deletes, ranges int
	bytes                 int
	ops                   []walOp // alias the record's bytes
}

// walOp is one operation of a WAL record: kind 1 Put (key, value), 0
// Delete (key), 2 DeleteRange (key the start, value the end).
type walOp struct {
	kind       int
	key, value []byte
}

func decodeWALRecord(b []byte) (walRecord, error) {
	body, err := crcBody(b, "WAL record")
	if err != nil {
		return walRecord{}, err
	}
	c := &cursor{b: body, corrupt: errCorrupt, base: "WAL record "}
	r := walRecord{version: c.u8(), bytes: len(b)}
	if r.version != 1 && r.version != 2 {
		return r, fmt.Errorf("%w: WAL record version %d (this kvenc reads 1 and 2)", errFormat, r.version)
	}
	r.seq = c.u64()
	n := c.uv()
	for i := 0; i < n && c.err == nil; i++ {
		switch k := c.u8(); {
		case k == 1:
			r.ops = append(r.ops, walOp{kind: k, key: c.bytes(), value: c.bytes()})
			r.puts++
		case k == 0:
			r.ops = append(r.ops, walOp{kind: k, key: c.bytes()})
			r.deletes++
		case k == 2 && r.version >= 2:
			r.ops = append(r.ops, walOp{kind: k, key: c.bytes(), value: c.bytes()})
			r.ranges++
		default:
			c.fail("op %d: kind %d", i, k)
		}
	}
	if c.err == nil && c.p != len(body) {
		c.fail("%d trailing bytes", len(body)-c.p)
	}
	return r, c.err
}

// walFile is one WAL file of a store's wal directory (kv's doc, WAL file).
type walFile struct {
	name    string
	size    int
	records []walRecord
	torn    int   // bytes of a last frame cut short (a write that never completed), or 0
	err     error // a bad header or a bad frame before the last one
}

func readWALFile(path, name string) walFile {
	f := walFile{name: name}
	b, err := os.ReadFile(path)
	if err != nil {
		f.err = err
		return f
	}
	f.size = len(b)
	hdr := len(walMagic) + 1
	switch {
	case len(b) < hdr && bytes.HasPrefix([]byte(walMagic+"\x01"), b):
		return f // created, header cut short
	case len(b) < hdr || string(b[:len(walMagic)]) != walMagic:
		f.err = fmt.Errorf("%w: offset 0: not a WAL file header", errCorrupt)
		return f
	case b[len(walMagic)] != walFileVer:
		f.err = fmt.Errorf("%w: WAL file version %d (this kvenc reads %d)", errFormat, b[len(walMagic)], walFileVer)
		return f
	}
	for off := hdr; off < len(b); {
		if len(b)-off < 4 {
			f.torn = len(b) - off
			break
		}
		n := int(uint32(b[off]) | uint32(b[off+1])<<8 | uint32(b[off+2])<<16 | uint32(b[off+3])<<24)
		if n > len(b)-off-4 {
			f.torn = len(b) - off
			break
		}
		end := off + 4 + n
		r, err := decodeWALRecord(b[off+4 : end])
		if err != nil {
			if end == len(b) && !errors.Is(err, errFormat) {
				f.torn = len(b) - off
				break
			}
			f.err = fmt.Errorf("frame at offset %d: %w", off, err)
			break
		}
		f.records = append(f.records, r)
		off = end
	}
	return f
}

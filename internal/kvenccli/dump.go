package kvenccli

import (
	"bytes"
	"container/heap"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"unicode/utf8"

	"github.com/kvenc/kvenc/blockenc"
	"github.com/kvenc/kvenc/kv/inspect"
)

const dumpSynopsis = `STORE [--prefix P] [--from K] [--to K] [--hex] [--reverse] [--versions] [--format text|hex|json] [--limit N]

Prints the cells of the kvenc store in DIR, opened read-only, in key order:
the newest live version of each key (what a read sees now: tombstones and
range tombstones applied, acknowledged writes still in the WAL included),
or with --versions every version the store keeps, with its seq and kind,
and the range tombstones. --from is inclusive, --to exclusive.`

func (c *cli) runDump(args []string, stdout, stderr io.Writer) error {
	fs := c.newFlagSet("dump", dumpSynopsis, stderr)
	from := fs.String("from", "", "first key (inclusive)")
	to := fs.String("to", "", "end key (exclusive)")
	reverse := fs.Bool("reverse", false, "from the last key down")
	versions := fs.Bool("versions", false, "every version, with seqs and kinds, and the range tombstones")
	format := fs.String("format", "text", "text, hex or json (one object a line)")
	limit := fs.Int("limit", 0, "print at most this many cells (0: all)")
	hexBounds := fs.Bool("hex", false, "--from and --to are hex (binary keys)")
	v, err := c.openStore(fs, args)
	if err != nil {
		return err
	}
	defer v.Close()
	if *format != "text" && *format != "hex" && *format != "json" {
		return fmt.Errorf("%w: --format %q is not text, hex or json", errUsage, *format)
	}
	var lo, hi []byte
	for _, b := range []struct {
		flag string
		dst  *[]byte
	}{{*from, &lo}, {*to, &hi}} {
		switch {
		case b.flag == "":
		case *hexBounds:
			if *b.dst, err = hex.DecodeString(b.flag); err != nil {
				return fmt.Errorf("%w: --from/--to %q: %v", errUsage, b.flag, err)
			}
		default:
			*b.dst = []byte(b.flag)
		}
	}
	d, err := newDumper(v.Store, lo, hi, *reverse, stderr)
	if err != nil {
		return err
	}
	defer d.bar.done()
	p := cellPrinter{w: stdout, format: *format, versions: *versions}
	if *versions {
		for _, r := range d.dels {
			p.rangeDel(r)
		}
	}
	n := 0
	emit := func(c *blockenc.Cell) bool {
		p.cell(c)
		n++
		return *limit == 0 || n < *limit
	}
	if *versions {
		err = d.each(emit)
	} else {
		err = d.live(emit)
	}
	if err != nil {
		return err
	}
	return p.err
}

// dumper merges the cells of a store's segments and of the WAL records
// not yet in a segment, in one direction between bounds.
type dumper struct {
	lo, hi  []byte
	reverse bool
	bar     *progress
	dels    []inspect.RangeDel
	h       sourceHeap
}

func newDumper(v *inspect.Store, lo, hi []byte, reverse bool, stderr io.Writer) (*dumper, error) {
	segs, err := v.Segments()
	if err != nil {
		return nil, err
	}
	nblocks := 0
	for _, s := range segs {
		nblocks += len(s.Blocks)
	}
	bar := newProgress(stderr, nblocks)
	d := &dumper{lo: lo, hi: hi, reverse: reverse, bar: bar, h: sourceHeap{reverse: reverse}}
	var walSeq uint64
	for _, s := range segs {
		if s.MetaErr != nil {
			return nil, fmt.Errorf("segment %d: %w (kvenc verify tells more)", s.ID, s.MetaErr)
		}
		if s.Meta == nil {
			continue // garbage
		}
		walSeq = max(walSeq, s.Meta.WALSeq)
		d.dels = append(d.dels, s.Meta.Dels...)
		src := &segSource{v: v, seg: s, refs: s.Blocks, bar: bar}
		d.h.add(src, lo, hi)
	}
	// Acknowledged writes not yet in a segment: the WAL records above
	// every segment's walSeq, as kv's Open replays them.
	var recs []inspect.WALRecord
	for _, f := range v.WALFiles() {
		if f.Err != nil {
			return nil, fmt.Errorf("%s: %w (kvenc verify tells more)", f.Name, f.Err)
		}
		recs = append(recs, f.Records...)
	}
	inBadger, errs := v.WALInEngine()
	if len(errs) > 0 {
		return nil, errs[0]
	}
	mem := &memSource{}
	for _, r := range append(recs, inBadger...) {
		if r.Seq <= walSeq {
			continue
		}
		for _, op := range r.Ops {
			if op.Ranged {
				d.dels = append(d.dels, inspect.RangeDel{Seq: r.Seq, Start: op.Key, End: op.Value})
			} else {
				mem.cells = append(mem.cells, blockenc.Cell{Key: op.Key, Value: op.Value, Seq: r.Seq, Kind: op.Kind})
			}
		}
	}
	// A later operation on a key in the same batch replaces an earlier
	// one: keep the last of equal key and seq.
	slices.SortStableFunc(mem.cells, blockenc.Compare)
	out := mem.cells[:0]
	for i, c := range mem.cells {
		if i+1 < len(mem.cells) && blockenc.Compare(c, mem.cells[i+1]) == 0 {
			continue
		}
		out = append(out, c)
	}
	mem.cells = out
	d.h.add(mem, lo, hi)
	slices.SortFunc(d.dels, func(a, b inspect.RangeDel) int { return bytes.Compare(a.Start, b.Start) })
	return d, d.h.err
}

// source is one ordered run of cells: a segment or the WAL's.
type source interface {
	// start positions the source on its first cell in the direction
	// (the first at or after lo, or the last below hi when reverse).
	start(lo, hi []byte, reverse bool) bool
	// step moves one cell on in the direction.
	step() bool
	cell() *blockenc.Cell
	error() error
}

// segSource reads a segment's blocks one at a time.
type segSource struct {
	bar     *progress // a step per block read
	v       *inspect.Store
	seg     *inspect.Segment
	refs    []inspect.BlockRef
	bi      int
	sk      blockenc.Seeker
	reverse bool
	err     error
}

func (s *segSource) load(i int) bool {
	s.bi = i
	if i < 0 || i >= len(s.refs) {
		return false
	}
	s.bar.step(fmt.Sprintf("segment %d block %d", s.seg.ID, i))
	b, err := s.v.Block(s.refs[i])
	if err == nil {
		err = s.sk.InitDict(b, s.seg.Dict(i))
	}
	if err != nil {
		s.err = fmt.Errorf("segment %d block %d: %w (kvenc verify tells more)", s.seg.ID, i, err)
		return false
	}
	return true
}

func (s *segSource) start(lo, hi []byte, reverse bool) bool {
	s.reverse = reverse
	if !reverse {
		i := 0
		if lo != nil {
			i = sort.Search(len(s.refs), func(j int) bool { return bytes.Compare(s.refs[j].Last, lo) >= 0 })
		}
		if !s.load(i) {
			return false
		}
		if lo != nil && s.sk.SeekGE(lo) || lo == nil && s.sk.First() {
			return true
		}
		return s.stepBlock()
	}
	i := len(s.refs) - 1
	if hi != nil {
		i = min(i, sort.Search(len(s.refs), func(j int) bool { return bytes.Compare(s.refs[j].Last, hi) >= 0 }))
	}
	if !s.load(i) {
		return false
	}
	if hi != nil && s.sk.SeekLT(hi) || hi == nil && s.sk.Last() {
		return true
	}
	return s.stepBlock()
}

// stepBlock moves to the next block in the direction, on its first cell.
func (s *segSource) stepBlock() bool {
	for s.err == nil && s.sk.Err() == nil {
		if !s.reverse {
			if !s.load(s.bi+1) || s.sk.First() {
				return s.bi < len(s.refs)
			}
		} else if !s.load(s.bi-1) || s.sk.Last() {
			return s.bi >= 0
		}
	}
	return false
}

func (s *segSource) step() bool {
	if s.reverse {
		return s.sk.Prev() || s.stepBlock()
	}
	return s.sk.Next() || s.stepBlock()
}

func (s *segSource) cell() *blockenc.Cell { return s.sk.Cell() }

func (s *segSource) error() error {
	if s.err != nil {
		return s.err
	}
	if err := s.sk.Err(); err != nil {
		return fmt.Errorf("segment %d block %d: %w (kvenc verify tells more)", s.seg.ID, s.bi, err)
	}
	return nil
}

// memSource holds the WAL's cells, sorted.
type memSource struct {
	cells   []blockenc.Cell
	i       int
	reverse bool
}

func (m *memSource) start(lo, hi []byte, reverse bool) bool {
	m.reverse = reverse
	if !reverse {
		m.i = sort.Search(len(m.cells), func(j int) bool { return lo == nil || bytes.Compare(m.cells[j].Key, lo) >= 0 })
	} else {
		m.i = sort.Search(len(m.cells), func(j int) bool { return hi != nil && bytes.Compare(m.cells[j].Key, hi) >= 0 }) - 1
	}
	return m.i >= 0 && m.i < len(m.cells)
}

func (m *memSource) step() bool {
	if m.reverse {
		m.i--
	} else {
		m.i++
	}
	return m.i >= 0 && m.i < len(m.cells)
}

func (m *memSource) cell() *blockenc.Cell { return &m.cells[m.i] }
func (m *memSource) error() error         { return nil }

// sourceHeap orders sources by their current cells (the smallest first,
// or the largest when reverse).
type sourceHeap struct {
	srcs    []source
	reverse bool
	err     error
}

func (h *sourceHeap) add(s source, lo, hi []byte) {
	if s.start(lo, hi, h.reverse) {
		heap.Push(h, s)
	} else if err := s.error(); err != nil && h.err == nil {
		h.err = err
	}
}

func (h *sourceHeap) Len() int { return len(h.srcs) }
func (h *sourceHeap) Less(i, j int) bool {
	c := blockenc.Compare(*h.srcs[i].cell(), *h.srcs[j].cell())
	if h.reverse {
		return c > 0
	}
	return c < 0
}
func (h *sourceHeap) Swap(i, j int) { h.srcs[i], h.srcs[j] = h.srcs[j], h.srcs[i] }
func (h *sourceHeap) Push(x any)    { h.srcs = append(h.srcs, x.(source)) }
func (h *sourceHeap) Pop() any {
	s := h.srcs[len(h.srcs)-1]
	h.srcs = h.srcs[:len(h.srcs)-1]
	return s
}

// each calls f with every cell within the bounds in the direction (until
// it returns false). The cell is valid until f returns.
func (d *dumper) each(f func(*blockenc.Cell) bool) error {
	for d.h.Len() > 0 && d.h.err == nil {
		s := d.h.srcs[0]
		c := s.cell()
		if !d.reverse && d.hi != nil && bytes.Compare(c.Key, d.hi) >= 0 || d.reverse && d.lo != nil && bytes.Compare(c.Key, d.lo) < 0 {
			break
		}
		if !f(c) {
			return nil
		}
		if s.step() {
			heap.Fix(&d.h, 0)
			continue
		}
		if err := s.error(); err != nil {
			return err
		}
		heap.Pop(&d.h)
	}
	return d.h.err
}

// live calls f with the newest version of each key, when it is a Put
// that no range tombstone deletes.
func (d *dumper) live(f func(*blockenc.Cell) bool) error {
	var key []byte
	var newest blockenc.Cell // reverse: the group's newest so far
	have := false
	flush := func() bool {
		if !have {
			return true
		}
		have = false
		if newest.Kind != blockenc.KindPut || d.deleted(newest.Key, newest.Seq) {
			return true
		}
		return f(&newest)
	}
	stopped := false
	err := d.each(func(c *blockenc.Cell) bool {
		same := have && bytes.Equal(c.Key, key)
		switch {
		case !d.reverse && same: // an older version
			return true
		case !d.reverse:
			if !flush() {
				stopped = true
				return false
			}
		case !same:
			if !flush() {
				stopped = true
				return false
			}
		}
		key = append(key[:0], c.Key...)
		newest = blockenc.Cell{Key: key, Value: append(newest.Value[:0], c.Value...), Seq: c.Seq, Kind: c.Kind}
		have = true
		return true
	})
	if err != nil || stopped {
		return err
	}
	flush()
	return nil
}

// deleted reports whether a range tombstone newer than seq covers key.
func (d *dumper) deleted(key []byte, seq uint64) bool {
	for _, r := range d.dels {
		if bytes.Compare(r.Start, key) > 0 {
			break
		}
		if bytes.Compare(key, r.End) < 0 && r.Seq > seq {
			return true
		}
	}
	return false
}

// cellPrinter writes cells as text, hex or JSON lines.
type cellPrinter struct {
	w        io.Writer
	format   string
	versions bool
	err      error
}

func (p *cellPrinter) printf(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, args...)
	}
}

func (p *cellPrinter) show(b []byte) string {
	if p.format == "hex" {
		return hex.EncodeToString(b)
	}
	return quoteN(b, -1)
}

func (p *cellPrinter) cell(c *blockenc.Cell) {
	if p.format == "json" {
		m := map[string]any{}
		jsonBytes(m, "key", c.Key)
		if p.versions {
			m["seq"], m["kind"] = c.Seq, c.Kind.String()
		}
		if c.Kind == blockenc.KindPut {
			jsonBytes(m, "value", c.Value)
		}
		p.json(m)
		return
	}
	switch {
	case !p.versions:
		p.printf("%s = %s\n", p.show(c.Key), p.show(c.Value))
	case c.Kind == blockenc.KindPut:
		p.printf("%s @%d Put = %s\n", p.show(c.Key), c.Seq, p.show(c.Value))
	default:
		p.printf("%s @%d Delete\n", p.show(c.Key), c.Seq)
	}
}

func (p *cellPrinter) rangeDel(r inspect.RangeDel) {
	if p.format == "json" {
		m := map[string]any{"seq": r.Seq, "kind": "DeleteRange"}
		jsonBytes(m, "start", r.Start)
		jsonBytes(m, "end", r.End)
		p.json(m)
		return
	}
	p.printf("[%s, %s) @%d DeleteRange\n", p.show(r.Start), p.show(r.End), r.Seq)
}

func (p *cellPrinter) json(m map[string]any) {
	b, err := json.Marshal(m)
	if err != nil && p.err == nil {
		p.err = err
	}
	p.printf("%s\n", b)
}

// jsonBytes sets m[name] to b as a string when it is UTF-8, else
// m[name+"_hex"] to its hex.
func jsonBytes(m map[string]any, name string, b []byte) {
	if utf8.Valid(b) {
		m[name] = string(b)
	} else {
		m[name+"_hex"] = hex.EncodeToString(b)
	}
}

package prefixkeys

import "github.com/kvenc/kvenc/blockenc/internal/cell"

// Back keeps cells that a backward move decoded on its way forward to the
// cell it lands on: prefix-compressed keys decode only forward, from a
// restart (or wherever the layout's encoder starts over), so a Prev takes
// the cell before from here rather than decoding the run again (Pebble's
// rowblk keeps the same cache for Prev). It holds cells [Lo,
// Lo+len(Cells)) of run Run, their keys copied into Keys; cells do not
// change while the block is the same, so it stays valid through forward
// moves and seeks until Init.
type Back struct {
	Lo    int
	Run   int
	Cells []BackCell
	Keys  []byte
}

// BackCell is one kept cell: what the forward decoder holds once it has
// landed on the cell.
type BackCell struct {
	K0, K1 int       // the key: Back.Keys[K0:K1]
	Off    int       // Reader.Off after the cell
	Seq    uint64    // the cell's seq
	Kind   cell.Kind // the cell's kind
	Val    []byte    // the cell's value, unless the layout reads values by index (ValueAt)
}

// MaxBack bounds the cells Back keeps; MaxBackKeys the bytes of their keys
// (a cell whose key does not fit starts Back over from it).
const (
	MaxBack     = 256
	MaxBackKeys = 128 << 10
)

// Emptied returns an empty Back that keeps b's buffers, for Init.
func (b *Back) Emptied() Back { return Back{Cells: b.Cells[:0], Keys: b.Keys[:0]} }

// BackAdd keeps the current cell (Idx-1) in Back, after the cells kept
// there when it follows them in the same run, else in place of them.
func (r *Reader) BackAdd() {
	b := &r.Back
	i := r.Idx - 1
	if i != b.Lo+len(b.Cells) || r.Run != b.Run || len(b.Cells) == MaxBack || len(b.Keys)+len(r.KV.Key) > MaxBackKeys {
		b.Lo, b.Run, b.Cells, b.Keys = i, r.Run, b.Cells[:0], b.Keys[:0]
	}
	k0 := len(b.Keys)
	b.Keys = append(b.Keys, r.KV.Key...)
	var val []byte
	if !r.ValueAt {
		val = r.KV.Value
	}
	b.Cells = append(b.Cells, BackCell{K0: k0, K1: len(b.Keys), Off: r.Off, Seq: r.KV.Seq, Kind: r.KV.Kind, Val: val})
}

// BackAt returns cell t from Back, or nil if Back does not have it for
// the current run.
func (r *Reader) BackAt(t int) *BackCell {
	b := &r.Back
	i := t - b.Lo
	if uint(i) >= uint(len(b.Cells)) || b.Run != r.Run {
		return nil
	}
	return &b.Cells[i]
}

// BackTo makes e, cell t, the current cell, in the state the forward
// decoder has once it lands on it: the key in KeyBuf (the next cell's
// shared prefix comes from there), Off after it, the next restart to
// meet. The layout sets the value.
func (r *Reader) BackTo(e *BackCell, t int) {
	n := e.K1 - e.K0
	if n+32 > cap(r.KeyBuf) { // None keys alias the cells: KeyBuf may be short
		r.KeyBuf = make([]byte, 0, max(n+32, 64))
	}
	buf := r.KeyBuf[:cap(r.KeyBuf)]
	copy(buf[:n], r.Back.Keys[e.K0:e.K1])
	r.KV.Key = buf[:n] // the capacity of KeyBuf, as SetKey leaves it
	r.KV.Kind, r.KV.Seq = e.Kind, e.Seq
	r.Off, r.Idx = e.Off, t+1
	if r.NRestarts > 0 {
		r.RI = t/r.Interval + 1
		r.NextRestart = r.RI * r.Interval
	}
	r.Valid = true
}

// ScanBack is the scan of a SeekLT: it moves forward with next (the
// layout's Next) from r's position, where a SeekGE would scan from, and
// keeps in Back the current cell (a seek may start from it) and every cell
// whose key is below key, until a key is >= key or the cells end. It
// returns the last cell below key (-1 for none), or false on error.
func (r *Reader) ScanBack(next func() bool, key []byte) (int, bool) {
	if r.Valid {
		r.BackAdd()
	}
	m := -1
	for r.Idx < r.Count {
		if !next() {
			return 0, false
		}
		// As the SeekGE scans: a key that shares more than m bytes with
		// the one before (below key) is below key too.
		if m < 0 || r.Shared <= m {
			var done bool
			if m, done = r.Reached(m, key); done {
				return r.Idx - 2, true
			}
		}
		r.BackAdd()
	}
	return r.Count - 1, true
}

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
	K0, K1 int32     // the key is Back.Keys[K0:K1]
	Kind   cell.Kind // the cell's kind
	Off    int       // Reader.Off after the cell
	RI     int       // Reader.RI after the cell
	Seq    uint64    // the cell's seq
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
//
// Keys keeps 32 bytes of room after its last key, so that a key of up to
// 32 bytes is copied in and out as two 16-byte moves, not a memmove call
// (KeyBuf, where the key comes from and goes to, keeps as much room).
// Measured with callgrind on a RowIndex reverse scan: the two memmove
// calls cost about 45 instructions per cell.
func (r *Reader) BackAdd() {
	b := &r.Back
	i := r.Idx - 1
	k := r.KV.Key
	n := len(k)
	if i != b.Lo+len(b.Cells) || r.Run != b.Run || len(b.Cells) == MaxBack || len(b.Keys)+n > MaxBackKeys {
		b.Lo, b.Run, b.Cells, b.Keys = i, r.Run, b.Cells[:0], b.Keys[:0]
	}
	k0 := len(b.Keys)
	if cap(b.Keys)-k0 < n+32 {
		b.growKeys(n)
	}
	dst := b.Keys[k0 : k0+n+32]
	if n <= 32 && cap(k) >= 32 {
		move32(dst, k[:32])
	} else {
		copy(dst, k)
	}
	b.Keys = b.Keys[:k0+n]
	var val []byte
	if !r.ValueAt {
		val = r.KV.Value
	}
	b.Cells = append(b.Cells, BackCell{K0: int32(k0), K1: int32(k0 + n), Kind: r.KV.Kind, Off: r.Off, RI: r.RI, Seq: r.KV.Seq, Val: val})
}

// BackStart empties Back for the cells of the current run from cell lo
// on, which BackPush then keeps.
func (r *Reader) BackStart(lo int) {
	b := &r.Back
	b.Lo, b.Run, b.Cells, b.Keys = lo, r.Run, b.Cells[:0], b.Keys[:0]
}

// BackPush is BackAdd for the cells of a move back to a cell, which
// BackStart began and which follow each other: the tests BackAdd makes of
// every cell are left to the cells that need a buffer to grow (or Back to
// start over: a scan that enters the next LZ4Dict sub-block). Measured with callgrind on a RowIndex reverse scan: 113
// instructions per cell in BackAdd, 82 in BackPush.
func (r *Reader) BackPush() {
	b := &r.Back
	k := r.KV.Key
	n, k0, c := len(k), len(b.Keys), len(b.Cells)
	if n > 32 || cap(k) < 32 || cap(b.Keys)-k0 < 64 || c == cap(b.Cells) || c == MaxBack || r.Run != b.Run {
		r.BackAdd()
		return
	}
	move32(b.Keys[k0:k0+32], k)
	b.Keys = b.Keys[:k0+n]
	b.Cells = b.Cells[:c+1]
	e := &b.Cells[c]
	e.K0, e.K1, e.Kind, e.Off, e.RI, e.Seq = int32(k0), int32(k0+n), r.KV.Kind, r.Off, r.RI, r.KV.Seq
	e.Val = nil
	if !r.ValueAt {
		e.Val = r.KV.Value
	}
}

// growKeys makes room in Keys for a key of n bytes and 32 more.
func (b *Back) growKeys(n int) {
	nb := make([]byte, len(b.Keys), max(2*cap(b.Keys), len(b.Keys)+n+32, 256))
	copy(nb, b.Keys)
	b.Keys = nb
}

// BackTo makes cell t the current cell if Back has it for the current
// run, in the state the forward decoder has once it lands on it: the key
// in KeyBuf (the next cell's shared prefix comes from there), Off after
// it, the next restart to meet. It returns the kept cell, whose value the
// layout sets, or nil if Back does not have cell t.
func (r *Reader) BackTo(t int) *BackCell {
	b := &r.Back
	i := t - b.Lo
	if uint(i) >= uint(len(b.Cells)) || b.Run != r.Run {
		return nil
	}
	e := &b.Cells[i]
	k0 := int(e.K0)
	n := int(e.K1) - k0
	if n+32 > cap(r.KeyBuf) { // None keys alias the cells: KeyBuf may be short
		r.KeyBuf = make([]byte, 0, max(n+32, 64))
	}
	buf := r.KeyBuf[:cap(r.KeyBuf)]
	if n <= 32 { // Keys has 32 bytes of room after its last key
		move32(buf, b.Keys[k0:k0+32])
	} else {
		copy(buf, b.Keys[k0:k0+n])
	}
	r.KV.Key = buf[:n] // the capacity of KeyBuf, as SetKey leaves it
	r.KV.Kind, r.KV.Seq = e.Kind, e.Seq
	r.Off, r.Idx, r.RI = e.Off, t+1, e.RI
	if r.NRestarts > 0 {
		r.NextRestart = e.RI * r.Interval
	}
	r.Valid = true
	return e
}

// ScanBack is the scan of a SeekLT: it moves forward with next (the
// layout's Next) from r's position, where a SeekGE would scan from, and
// keeps in Back the current cell (a seek may start from it) and every cell
// whose key is below key, until a key is >= key or the cells end. It
// returns the last cell below key (-1 for none), or false on error.
func (r *Reader) ScanBack(next func() bool, key []byte) (int, bool) {
	if r.Valid {
		r.BackStart(r.Idx - 1)
		r.BackPush()
	} else {
		r.BackStart(r.Idx)
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
		r.BackPush()
	}
	return r.Count - 1, true
}

// move32 copies the first 32 bytes of src to dst as two 16-byte moves (a
// [32]byte assignment compiles to a memmove call).
func move32(dst, src []byte) {
	d, s := (*[32]byte)(dst[:32]), (*[32]byte)(src[:32])
	*(*[16]byte)(d[:16]) = *(*[16]byte)(s[:16])
	*(*[16]byte)(d[16:]) = *(*[16]byte)(s[16:])
}

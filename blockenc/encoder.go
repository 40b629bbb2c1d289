package blockenc

import (
	"fmt"
	"math"

	"github.com/kvenc/kvenc/blockenc/internal/colblk"
	"github.com/kvenc/kvenc/blockenc/internal/frame"
	"github.com/kvenc/kvenc/blockenc/internal/lz4area"
	"github.com/kvenc/kvenc/blockenc/internal/prefixkeys"
	"github.com/kvenc/kvenc/blockenc/internal/rowblk"
)

// Encoder builds one block from cells added in order.
//
// The zero Encoder is not usable; call NewEncoder. An Encoder is not safe
// for concurrent use.
type Encoder struct {
	opts Options
	err  error // sticky: invalid options
	n    int   // cells added
	row  *rowblk.Writer
	col  *colblk.Writer
	// Columnar: a copy of the previous key and its seq, for the order
	// check (a row writer keeps its own).
	prevKey []byte
	prevSeq uint64
}

// NewEncoder returns an Encoder for opts. Invalid options are reported by
// Add and Finish (ErrInvalidOptions).
func NewEncoder(opts Options) *Encoder {
	e := &Encoder{}
	if opts.RestartInterval == 0 {
		opts.RestartInterval = DefaultRestartInterval
	}
	e.opts = opts
	switch {
	case !opts.Encoding.IsValid():
		e.err = fmt.Errorf("%w: encoding %d is not one of %v", ErrInvalidOptions, opts.Encoding, Encodings())
	case opts.RestartInterval < 0 || opts.RestartInterval > prefixkeys.MaxInterval:
		e.err = fmt.Errorf("%w: restart interval %d not in [1, %d]", ErrInvalidOptions, opts.RestartInterval, prefixkeys.MaxInterval)
	case !opts.Compression.IsValid():
		e.err = fmt.Errorf("%w: compression %d is not one of %v", ErrInvalidOptions, opts.Compression, Compressions())
	case opts.CompressionLevel < 0 || opts.CompressionLevel > MaxCompressionLevel:
		e.err = fmt.Errorf("%w: compression level %d not in [0, %d]", ErrInvalidOptions, opts.CompressionLevel, MaxCompressionLevel)
	case opts.Dict != nil && opts.Compression != LZ4Dict:
		e.err = fmt.Errorf("%w: a Dict needs compression %v, not %v", ErrInvalidOptions, LZ4Dict, opts.Compression)
	}
	compress := byte(0)
	switch opts.Compression {
	case LZ4:
		compress = frame.FlagLZ4
	case LZ4Dict:
		compress = frame.FlagLZ4Dict
	}
	var ext *lz4area.Dict
	if opts.Dict != nil {
		ext = opts.Dict.d
	}
	if opts.Encoding == Columnar {
		e.col = colblk.NewWriter(opts.RestartInterval, compress, opts.CompressionLevel, ext)
	} else {
		e.row = rowblk.NewWriter(rowblk.Options{
			Layout:    byte(opts.Encoding),
			Interval:  opts.RestartInterval,
			Compress:  compress,
			Level:     opts.CompressionLevel,
			Ext:       ext,
			Dedupe:    opts.DedupeValues,
			IntValues: opts.IntValues,
		})
	}
	e.Reset()
	return e
}

// Reset empties the encoder for a new block with the same options, keeping
// its buffers.
func (e *Encoder) Reset() {
	e.n = 0
	e.prevKey, e.prevSeq = e.prevKey[:0], 0
	if e.row != nil {
		e.row.Reset()
	} else {
		e.col.Reset()
	}
}

// Len returns the number of cells added since NewEncoder or Reset.
func (e *Encoder) Len() int { return e.n }

// Size returns the length in bytes of the block Finish would return now
// without compression and with values inline: exact for the row encodings
// when Compression is NoCompression and IntValues is off, an upper bound
// otherwise (a compressed form or a column is used only when smaller).
// Cutting blocks at a Size, as HBase does, makes blocks of equal
// uncompressed size.
func (e *Encoder) Size() int {
	if e.row != nil {
		return e.row.Size()
	}
	return e.col.Size(e.n)
}

// Add appends c to the block. c must sort after the previously added cell
// (Compare > 0). Add copies what it needs: the caller may reuse c's slices
// when Add returns. On error the block is unchanged.
func (e *Encoder) Add(c Cell) error {
	if e.err != nil {
		return e.err
	}
	switch {
	case len(c.Key) > MaxKeyLen:
		return fmt.Errorf("%w: key of %d bytes (max %d)", ErrTooLarge, len(c.Key), MaxKeyLen)
	case len(c.Value) > MaxValueLen:
		return fmt.Errorf("%w: value of %d bytes (max %d)", ErrTooLarge, len(c.Value), MaxValueLen)
	case c.Seq > MaxSeq:
		return fmt.Errorf("%w: seq %d (max %d)", ErrTooLarge, c.Seq, uint64(MaxSeq))
	case !c.Kind.IsValid():
		return fmt.Errorf("%w: kind %d is neither %d (Delete) nor %d (Put)", ErrInvalidKind, c.Kind, KindDelete, KindPut)
	}
	if e.n > 0 {
		prevKey, prevSeq := e.prevKey, e.prevSeq
		if e.row != nil {
			prevKey, prevSeq = e.row.Last()
		}
		if Compare(Cell{Key: prevKey, Seq: prevSeq}, c) >= 0 {
			return fmt.Errorf("%w: cell %d (key %q seq %d) after key %q seq %d",
				ErrOutOfOrder, e.n, c.Key, c.Seq, prevKey, prevSeq)
		}
	}
	if e.row == nil {
		e.col.Add(c, e.n)
		e.prevKey = append(e.prevKey[:0], c.Key...)
		e.prevSeq = c.Seq
		e.n++
		return nil
	}
	if uint64(e.row.Buffered())+uint64(len(c.Key))+uint64(len(c.Value))+64 > math.MaxUint32 {
		return fmt.Errorf("%w: block over 4 GiB", ErrTooLarge)
	}
	e.row.Add(c)
	e.n++
	return nil
}

// Finish returns the block holding every cell added so far, in a new slice
// the caller owns. The Encoder is unchanged: more cells may be added and
// Finish called again, or Reset starts a new block.
//
// With Compression or IntValues, Finish builds each form the options allow
// (values inline or as a column; cells compressed or not) and returns the
// smallest; the flags byte says which.
func (e *Encoder) Finish() ([]byte, error) { return e.AppendFinish(nil) }

// AppendFinish is Finish appending the block to dst instead of a new
// slice: it returns dst extended by the block's bytes (the block is
// b[len(dst):] of the result b), growing dst only when it has too little
// room. The bytes are those Finish returns. dst is the caller's: once done
// with a block, it may pass the buffer back (b[:0]) for the next one, so
// that a stream of blocks reuses one allocation. On error dst is returned
// unchanged.
//
// A Columnar block is made in a buffer the Encoder keeps, so dst grows
// by the block's length only; a row block is made in place, so dst first
// grows by Size, a bound on the block.
func (e *Encoder) AppendFinish(dst []byte) ([]byte, error) {
	if e.err != nil {
		return dst, e.err
	}
	if e.row != nil {
		return e.row.AppendFinish(dst), nil
	}
	return e.col.AppendFinish(dst, e.n), nil
}

package colblk

import (
	"fmt"
	"hash/maphash"
	"testing"

	"github.com/kvenc/kvenc/blockenc/internal/cell"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDictHashCollision: a value whose hash an earlier, different value
// already holds in the Writer's map of distinct values is kept as a
// distinct value of its own, and every cell reads back its own value.
func TestDictHashCollision(t *testing.T) {
	w := NewWriter(16, 0, 0, nil)
	w.Reset()
	a, b := []byte("a value"), []byte("another value")
	vals := [][]byte{a, b, a, b, a}
	for i, v := range vals {
		if i == 1 {
			// b's hash now names a's index, as a collision would.
			w.dict[maphash.Bytes(w.seed, b)] = 0
		}
		w.Add(cell.Cell{Key: []byte(fmt.Sprintf("k%d", i)), Value: v, Seq: uint64(i + 1), Kind: cell.KindPut}, i)
	}
	assert.Equal(t, []int64{0, 1, 0, 2, 0}, w.dictIdx, "b twice as a distinct value, a deduplicated")
	blk := w.AppendFinish(nil, len(vals))
	var r Reader
	require.NoError(t, r.Init(blk, nil))
	var got [][]byte
	for ok := r.First(); ok; ok = r.Next() {
		got = append(got, append([]byte(nil), r.KV.Value...))
	}
	require.NoError(t, r.Fail)
	assert.Equal(t, vals, got)
}

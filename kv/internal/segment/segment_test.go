package segment

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestBlockRange: a block holds the keys after the previous block's last
// key (from the segment's first key for block 0) up to its own.
func TestBlockRange(t *testing.T) {
	g := &Segment{Meta: Meta{Cells: 9, FirstKey: []byte("b"), LastKey: []byte("k")},
		LastKeys: [][]byte{[]byte("c"), []byte("f"), []byte("k")}}
	lo, hi := g.BlockRange(1)
	assert.Equal(t, []byte("c\x00"), lo)
	assert.Equal(t, []byte("f"), hi)
	lo, hi = g.BlockRange(0)
	assert.Equal(t, []byte("b"), lo)
	assert.Equal(t, []byte("c"), hi)
}

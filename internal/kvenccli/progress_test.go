package kvenccli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestProgress: the bar stays silent for the first second and when its
// writer is not a terminal; after that it draws each step on one line and
// clears it when done.
func TestProgress(t *testing.T) {
	var b bytes.Buffer
	p := newProgress(&b, 4)
	assert.False(t, p.on, "a buffer is not a terminal")
	p.step("one")
	p.done()
	assert.Empty(t, b.String())

	p = &progress{w: &b, on: true, total: 4, start: time.Now()}
	p.step("quick")
	assert.Empty(t, b.String(), "within the first second")
	p.start = time.Now().Add(-2 * time.Second)
	p.step("segment 1 block 0")
	p.step("segment 1 block 1")
	assert.Equal(t, "\r[#######.......................] 2/4 segment 1 block 0                       "+
		"\r[###############...............] 3/4 segment 1 block 1                       ", b.String())
	b.Reset()
	p.done()
	assert.Equal(t, "\r"+strings.Repeat(" ", 90)+"\r", b.String())
}

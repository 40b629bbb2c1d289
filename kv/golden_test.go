package kv

import (
	"testing"

	"github.com/kvenc/kvenc/kv/internal/golden"
	"github.com/kvenc/kvenc/kv/internal/layout"
	"github.com/stretchr/testify/require"
)

// kv's default compaction blocks are those of the segment meta's worked
// example (package segment's doc): their settings bytes.
func TestDefaultSettings(t *testing.T) {
	o := DefaultOptions("")
	require.Equal(t, golden.Unhex(t, "01 05 02 09 03 10 808001 808004"), o.blockSettings(o.compactionBlock()))
}

// kv's Separator is the one of its key layout.
func TestSeparator(t *testing.T) {
	require.Equal(t, layout.Separator, Separator)
}

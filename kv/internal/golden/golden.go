// Package golden holds what the tests of kv's formats share: golden files
// in a package's testdata directory (rewritten with -rewrite, a format
// change), hex dumps written as the package docs draw them, and the check
// that a decoder refuses every truncation and bit flip with ErrCorrupt.
// Only tests import it.
package golden

import (
	"bytes"
	"encoding/hex"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kvenc/kvenc/blockenc"
	"github.com/stretchr/testify/require"
)

// Rewrite is the -rewrite flag of the test binary.
var Rewrite = flag.Bool("rewrite", false, "rewrite the golden files in testdata/ (a format change)")

// Check compares got with testdata/name (rewriting it with -rewrite) and
// reports the first differing offset.
func Check(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *Rewrite {
		require.NoError(t, os.WriteFile(path, got, 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	if !bytes.Equal(got, want) {
		i := 0
		for i < len(got) && i < len(want) && got[i] == want[i] {
			i++
		}
		require.Failf(t, "golden file differs", "%s: first difference at offset %d (got %d bytes, want %d): a format change needs -rewrite", name, i, len(got), len(want))
	}
}

// Read returns testdata/name.
func Read(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	return b
}

// Unhex returns the bytes of s, hex digits separated by any white space.
func Unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.Join(strings.Fields(s), ""))
	require.NoError(t, err)
	return b
}

// RequireCorrupt requires err to wrap blockenc.ErrCorrupt (which is
// kv.ErrCorrupt).
func RequireCorrupt(t testing.TB, err error, msgAndArgs ...any) {
	t.Helper()
	require.ErrorIs(t, err, blockenc.ErrCorrupt, msgAndArgs...)
}

// RequireDecodeCorrupt checks that decode fails with ErrCorrupt on every
// truncation of b and on b with any one byte flipped.
func RequireDecodeCorrupt(t *testing.T, b []byte, decode func([]byte) error) {
	t.Helper()
	for i := range b {
		RequireCorrupt(t, decode(b[:i]), "truncated to %d", i)
		c := bytes.Clone(b)
		c[i] ^= 0x10
		RequireCorrupt(t, decode(c), "byte %d flipped", i)
	}
}

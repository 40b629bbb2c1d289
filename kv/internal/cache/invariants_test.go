//go:build invariants

package cache

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestInvariantsTag: under -tags invariants (make test) the checks are
// on; the tag of invariants_on.go must be spelled as make test spells it.
func TestInvariantsTag(t *testing.T) {
	require.True(t, Invariants, "-tags invariants did not turn on cache.Invariants")
}

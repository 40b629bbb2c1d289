package segread

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestPoll: a poll that runs out halves the next one's time, down to
// none; one that succeeds after a wait restores it.
func TestPoll(t *testing.T) {
	spin := spinFor
	never := func() bool { return false }
	var want []time.Duration
	var got []time.Duration
	for d := spinFor / 2; ; d /= 2 {
		if d < spinFor/64 {
			d = 0
		}
		want = append(want, d)
		require.False(t, poll(&spin, never))
		got = append(got, spin)
		if d == 0 {
			break
		}
	}
	require.Equal(t, want, got, "spin after each poll that ran out")
	require.False(t, poll(&spin, never))
	require.Zero(t, spin, "spin stays at none")
	n := 0
	require.True(t, poll(&spin, func() bool { n++; return n == 3 }))
	require.Equal(t, spinFor, spin, "spin after a poll that succeeded after a wait")
	spin = spinFor / 4
	require.True(t, poll(&spin, func() bool { return true }))
	require.Equal(t, spinFor/4, spin, "a poll that succeeds at once leaves spin")
}

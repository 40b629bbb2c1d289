//go:build linux

package storebench

import (
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestWatchAnon: memory the process holds and touches while watchAnon
// samples shows in its peak, which is at least the resident set it
// started from.
func TestWatchAnon(t *testing.T) {
	before := procStatus("RssAnon:")
	require.Positive(t, before)
	stop := watchAnon()
	b := make([]byte, 64<<20)
	for i := range b {
		b[i] = byte(i)
	}
	time.Sleep(3 * anonSample)
	peak := stop()
	runtime.KeepAlive(b)
	require.GreaterOrEqual(t, peak, before+48<<20, "64 MiB touched while sampling")
}

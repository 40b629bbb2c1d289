package kvtikv

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// childEnv makes the test binary run as writer A of TestFailover: the
// mock's directory and the file of acknowledged keys, separated by a
// newline.
const childEnv = "KVTIKV_FAILOVER_CHILD"

// failoverLease is the lease of TestFailover's writers.
const failoverLease = time.Second

// runChild is writer A: four goroutines Put keys until the process is
// killed, appending each key to the ack file once its Put returned.
func runChild() int {
	dir, ackPath, _ := strings.Cut(os.Getenv(childEnv), "\n")
	store, err := newMock(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	o := testOptions("fo")
	o.Lease = failoverLease
	s, err := Open(store, o)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	ack, err := os.OpenFile(ackPath, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				k := fmt.Sprintf("g%d-%06d", g, i)
				if err := s.Put([]byte(k), []byte(value(i, g))); err != nil {
					fmt.Fprintln(os.Stderr, err)
					os.Exit(3)
				}
				mu.Lock()
				_, err := fmt.Fprintf(ack, "%s %d %d\n", k, i, g)
				mu.Unlock()
				if err != nil {
					os.Exit(4)
				}
			}
		}()
	}
	wg.Wait()
	return 0
}

// Failover: writer A, in a child process on a mock kept in a directory,
// is killed with SIGKILL while it writes (past several flushes); writer B
// on the same directory is refused while A's lease runs, then takes the
// prefix over and reads every write A acknowledged.
func TestFailover(t *testing.T) {
	dir := t.TempDir()
	ackPath := filepath.Join(t.TempDir(), "acks")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+dir+"\n"+ackPath)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	const want = 2000 // acks before the kill: several memstores flushed
	deadline := time.Now().Add(2 * time.Minute)
	for countLines(ackPath) < want {
		require.True(t, time.Now().Before(deadline), "writer A acknowledged %d writes: %s", countLines(ackPath), stderr.String())
		time.Sleep(20 * time.Millisecond)
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	killed := time.Now()
	_ = cmd.Wait()
	require.Empty(t, stderr.String(), "writer A's errors")

	acks := readAcks(t, ackPath)
	require.GreaterOrEqual(t, len(acks), want)
	store := mockStore(t, dir)
	o := testOptions("fo")
	o.Lease = failoverLease
	_, err := Open(store, o)
	if time.Since(killed) < failoverLease/2 {
		require.ErrorContains(t, err, "held by writer", "A's lease still runs")
	}
	b := openWhenFree(t, store, o, 30*time.Second)
	t.Logf("B took over %v after the kill; A acknowledged %d writes", time.Since(killed), len(acks))
	for k, v := range acks {
		got, err := b.Get([]byte(k))
		require.NoError(t, err, "acknowledged key %s", k)
		require.Equal(t, v, string(got), "acknowledged key %s", k)
	}
	require.NoError(t, b.Put([]byte("from B"), []byte("after the takeover")))
	require.NoError(t, b.Close())
}

func countLines(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	return strings.Count(string(b), "\n")
}

// readAcks returns the keys and values the ack file lists (whole lines:
// a line cut by the kill was never a complete ack).
func readAcks(t *testing.T, path string) map[string]string {
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	acks := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var k string
		var i, g int
		if _, err := fmt.Sscanf(sc.Text(), "%s %d %d", &k, &i, &g); err == nil {
			acks[k] = value(i, g)
		}
	}
	require.NoError(t, sc.Err())
	return acks
}

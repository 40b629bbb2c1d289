//go:build race

package dataset

// raceEnabled: tests skip dbgen's 10 s text pool set-up under -race.
const raceEnabled = true

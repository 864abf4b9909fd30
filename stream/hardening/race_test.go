//go:build race

package hardening_test

// raceDetector is true under -race, where every byte costs several times
// more: the largest inputs shrink to keep the package within a minute.
const raceDetector = true

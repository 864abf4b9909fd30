//go:build !race

package hardening_test

// raceDetector is true under -race (see race_test.go).
const raceDetector = false

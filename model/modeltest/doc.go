// Package modeltest is toolscope's test kit: the fixtures and helpers the
// tests of several packages share (context tokens signed as the platform
// signs them, the _meta and tools/call bodies it sends, a collecting
// model.Sink, the shared test data in testdata/ and the Node peers), so
// each is written once. Only _test.go files import it
// (TestOnlyTestsImportKit checks); like model it imports no other project
// package, so decoder's own tests can use it too.
package modeltest

package otlp

// maxSeenIDs bounds the feed event ids the exporter remembers, so an event a
// feed delivers twice counts once even when the exporter is wired ahead of
// the store's own de-duplication.
const maxSeenIDs = 16384

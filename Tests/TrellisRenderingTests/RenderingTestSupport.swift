// The rendering module's own tests: a resolved screen made into frames, pictures and client
// formats, with no HTTP server in between.

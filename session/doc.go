// Package session is the canonical model every other package speaks: Session, Message and
// Part, their ids and ordering, and the validation every write goes through. It imports nothing
// of Pond's, so anything may import it.
package session

// Package loop is csa-agent's agent loop: send the conversation, stream the
// answer, run the tool calls it asks for (safe ones in parallel), append
// the results, and repeat until the model stops calling tools, a limit is
// reached or the context is cancelled. Everything it does is reported as
// events; it renders nothing.
package loop

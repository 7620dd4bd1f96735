// Package llmtest is the conformance suite every provider client passes
// against the scripted model server, over real HTTP on 127.0.0.1.
package llmtest

// Script drives the suite; each case picks its rule by its prompt.
const Script = `
[[rule]]
name = "text"
contains = "say hello"
  [[rule.step]]
  text = "Hello there, this answer comes in several deltas."
  input_tokens = 11
  output_tokens = 7

[[rule]]
name = "call"
contains = "read x"
  [[rule.step]]
  text = "Reading."
  call = {name = "Read", args = {file_path = "x"}}
  [[rule.step]]
  text = "Read x."

[[rule]]
name = "calls"
contains = "read both"
  [[rule.step]]
  calls = [{name = "Read", args = {file_path = "x"}}, {name = "Read", args = {file_path = "y"}}]
  [[rule.step]]
  text = "Read both."

[[rule]]
name = "think"
contains = "think first"
  [[rule.step]]
  thinking = "The user wants x read, so read it."
  text = "Reading."
  call = {name = "Read", args = {file_path = "x"}}
  [[rule.step]]
  text = "Thought and read."

[[rule]]
name = "ratelimit"
contains = "rate limited"
  [[rule.step]]
  error = "rate_limit"
  retry_after_ms = 20
  times = 1
  [[rule.step]]
  text = "After the 429."

[[rule]]
name = "overloaded"
contains = "overloaded"
  [[rule.step]]
  error = "overloaded"
  times = 1
  [[rule.step]]
  text = "From the fallback."

[[rule]]
name = "truncated"
contains = "truncated"
  [[rule.step]]
  error = "truncated"
  times = 1
  [[rule.step]]
  text = "Whole this time."

[[rule]]
name = "stall"
contains = "stall"
  [[rule.step]]
  error = "stall"
  times = 1
  [[rule.step]]
  text = "Not stalled this time."

[[rule]]
name = "slow headers"
contains = "slow headers"
  [[rule.step]]
  error = "truncated"
  delay_ms = 20000
  times = 1
  [[rule.step]]
  text = "Headers in time this time."

[[rule]]
name = "slow chunks"
contains = "slow chunks"
  [[rule.step]]
  text = "Every chunk of this answer comes far too late."
  chunk_delay_ms = 20000

[[rule]]
name = "auth"
contains = "no key"
  [[rule.step]]
  error = "status"
  status = 401
  message = "invalid x-api-key"

[[rule]]
name = "slow"
contains = "wait long"
  [[rule.step]]
  error = "rate_limit"
  retry_after = 30
`

"""The service's runtime: what the apps run on rather than what they do. Background work on
lanes or behind fair queues (`lanes`, `fair_queue`), Redis clients (`redis_clients`), traces
(`traces`), the ids logged with a request or task (`log_context`) and counting windows
(`windows`). It imports none of the apps: `games`, `bots`, `platforms` and the project package
all build on it."""

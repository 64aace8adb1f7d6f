"""A hostile-server fuzzer (#18): random schemas, strings and event orders through the real client."""

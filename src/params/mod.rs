//! The parameter model of the flavors: typed, defaulted, merged from env, values files and --set.

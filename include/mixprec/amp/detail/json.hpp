// SPDX-License-Identifier: MIT
// mixprec/amp/detail/json.hpp — the JSON reader and writers of grad_scaler::state_dict /
// load_state_dict in detail::json (parse, number_text, quote_key, ...): they are
// mixprec/text/json.hpp's public mixprec::json, which amp's code uses through this header.
#ifndef MIXPREC_DETAIL_JSON_HPP
#define MIXPREC_DETAIL_JSON_HPP

#include <string>

#include "../../text/json.hpp"

namespace mixprec {
namespace detail {
namespace json {

using ::mixprec::json::is_integer_literal;
using ::mixprec::json::kind;
using ::mixprec::json::kind_name;
using ::mixprec::json::max_depth;
using ::mixprec::json::number_text;
using ::mixprec::json::parse;
using ::mixprec::json::parse_error;
using ::mixprec::json::quote;
using ::mixprec::json::to_double;
using ::mixprec::json::to_int64;
using ::mixprec::json::value;
using json_impl::quote_key;

}  // namespace json
}  // namespace detail
}  // namespace mixprec

#endif  // MIXPREC_DETAIL_JSON_HPP

#include "query/internal/sql_type.h"

#include <algorithm>

namespace quiver::query::internal {

namespace {

using arrow::DataType;
using arrow::TypeId;
using expr::BinaryOp;
using expr::Expr;

int IntegerBits(TypeId id) { return 8 * arrow::IntegerByteWidth(id); }

DataType IntegerOf(int bits, bool is_signed) {
  static constexpr TypeId kSigned[] = {TypeId::kInt8, TypeId::kInt16, TypeId::kInt32,
                                       TypeId::kInt64};
  static constexpr TypeId kUnsigned[] = {TypeId::kUInt8, TypeId::kUInt16, TypeId::kUInt32,
                                         TypeId::kUInt64};
  const int at = bits <= 8 ? 0 : bits <= 16 ? 1 : bits <= 32 ? 2 : 3;
  return arrow::SimpleType(is_signed ? kSigned[at] : kUnsigned[at]);
}

// Two numeric types combined by arithmetic (DataFusion's numeric coercion).
DataType Arithmetic(const DataType& a, const DataType& b) {
  if (arrow::IsFloating(a.id()) || arrow::IsFloating(b.id())) {
    const bool any64 = a.id() == TypeId::kFloat64 || b.id() == TypeId::kFloat64 ||
                       (!arrow::IsFloating(a.id()) && IntegerBits(a.id()) == 64) ||
                       (!arrow::IsFloating(b.id()) && IntegerBits(b.id()) == 64);
    return any64 ? DataType::Float64() : DataType::Float32();
  }
  const bool sa = arrow::IsSignedInteger(a.id());
  const bool sb = arrow::IsSignedInteger(b.id());
  const int wa = IntegerBits(a.id());
  const int wb = IntegerBits(b.id());
  if (sa == sb) return IntegerOf(std::max(wa, wb), sa);
  const int unsigned_bits = sa ? wb : wa;
  const int signed_bits = sa ? wa : wb;
  return IntegerOf(std::min(64, std::max(signed_bits, 2 * unsigned_bits)), true);
}

bool IsNumeric(const DataType& t) { return arrow::IsInteger(t.id()) || arrow::IsFloating(t.id()); }

bool IsNumericLiteral(const Expr& e) {
  return e.kind == Expr::Kind::kLiteral && (e.literal.type == expr::Literal::Type::kInt ||
                                            e.literal.type == expr::Literal::Type::kUInt ||
                                            e.literal.type == expr::Literal::Type::kFloat);
}

const arrow::Field* FindColumn(const std::vector<arrow::Field>& fields,
                               const std::vector<std::string>& path, size_t at = 0) {
  for (const arrow::Field& f : fields) {
    if (f.name != path[at]) continue;
    if (at + 1 == path.size()) return &f;
    if (f.type.id() != TypeId::kStruct) return nullptr;
    return FindColumn(f.type.children(), path, at + 1);
  }
  return nullptr;
}

SqlType Infer(const Expr& e, const arrow::Schema& schema, const DataType& evaluated);

// The type a CAST names, as Lance's planner reads it (`INT` is int32, `BIGINT` int64, ...); the
// evaluated type for the others (timestamps, decimals).
DataType CastTarget(const std::string& name, const DataType& evaluated) {
  std::string n = name;
  const bool is_unsigned = n.find("UNSIGNED") != std::string::npos;
  n = n.substr(0, n.find(' '));
  if (n == "TINYINT") return is_unsigned ? DataType::UInt8() : DataType::Int8();
  if (n == "SMALLINT") return is_unsigned ? DataType::UInt16() : DataType::Int16();
  if (n == "INT" || n == "INTEGER") return is_unsigned ? DataType::UInt32() : DataType::Int32();
  if (n == "BIGINT") return is_unsigned ? DataType::UInt64() : DataType::Int64();
  if (n == "FLOAT") return DataType::Float32();
  if (n == "DOUBLE") return DataType::Float64();
  if (n == "STRING") return DataType::Utf8();
  if (n == "BOOLEAN") return DataType::Bool();
  if (n == "DATE") return DataType::Date32();
  return evaluated;
}

// A node's type where the evaluator's own is not known: inferred from its operands alone.
SqlType Operand(const Expr& e, const arrow::Schema& schema) {
  return Infer(e, schema, DataType::Null());
}

SqlType Infer(const Expr& e, const arrow::Schema& schema, const DataType& evaluated) {
  switch (e.kind) {
    case Expr::Kind::kLiteral:
      switch (e.literal.type) {
        case expr::Literal::Type::kNull:
          return {evaluated, true};
        case expr::Literal::Type::kBool:
          return {DataType::Bool(), false};
        case expr::Literal::Type::kInt:
          return {DataType::Int64(), false};
        case expr::Literal::Type::kUInt:
          return {DataType::UInt64(), false};
        case expr::Literal::Type::kFloat:
          return {DataType::Float64(), false};
        case expr::Literal::Type::kString:
          return {DataType::Utf8(), false};
        case expr::Literal::Type::kDate:
          return {DataType::Date32(), false};
        default:
          return {evaluated, false};
      }
    case Expr::Kind::kColumn: {
      if (e.path.empty()) return {evaluated, true};
      const arrow::Field* f = FindColumn(schema.fields, e.path);
      if (f == nullptr) return {evaluated, true};
      return {f->type, f->nullable};
    }
    case Expr::Kind::kNegate:
      return Operand(*e.args[0], schema);
    case Expr::Kind::kBinary: {
      const Expr& l = *e.args[0];
      const Expr& r = *e.args[1];
      SqlType lt = Operand(l, schema);
      SqlType rt = Operand(r, schema);
      const bool nullable = lt.nullable || rt.nullable;
      switch (e.op) {
        case BinaryOp::kPlus:
        case BinaryOp::kMinus:
        case BinaryOp::kMultiply:
        case BinaryOp::kDivide:
        case BinaryOp::kModulo: {
          if (!IsNumeric(lt.type) || !IsNumeric(rt.type)) return {evaluated, nullable};
          // A literal takes the other side's type (unless it is a float beside integers).
          if (IsNumericLiteral(l) && !IsNumericLiteral(r) &&
              !(arrow::IsFloating(lt.type.id()) && arrow::IsInteger(rt.type.id()))) {
            return {rt.type, nullable};
          }
          if (IsNumericLiteral(r) && !IsNumericLiteral(l) &&
              !(arrow::IsFloating(rt.type.id()) && arrow::IsInteger(lt.type.id()))) {
            return {lt.type, nullable};
          }
          return {Arithmetic(lt.type, rt.type), nullable};
        }
        case BinaryOp::kConcat:
          return {DataType::Utf8(), nullable};
        case BinaryOp::kBitAnd:
        case BinaryOp::kBitOr:
        case BinaryOp::kBitXor:
        case BinaryOp::kShiftLeft:
        case BinaryOp::kShiftRight:
          return {evaluated, nullable};
        default:  // comparisons, AND, OR
          return {DataType::Bool(), nullable};
      }
    }
    case Expr::Kind::kNot:
    case Expr::Kind::kIn:
    case Expr::Kind::kBetween:
    case Expr::Kind::kLike: {
      bool nullable = false;
      for (const auto& a : e.args) nullable |= Operand(*a, schema).nullable;
      return {DataType::Bool(), nullable};
    }
    case Expr::Kind::kIsNull:
    case Expr::Kind::kIsTrue:
    case Expr::Kind::kIsFalse:
    case Expr::Kind::kIsUnknown:
      return {DataType::Bool(), false};
    case Expr::Kind::kCast:
      return {CastTarget(e.type_name, evaluated),
              e.try_cast || Operand(*e.args[0], schema).nullable};
    case Expr::Kind::kCall:
      // DataFusion's character and byte counts are Int32 (the evaluator's integers are Int64).
      if (e.name == "strpos" || e.name == "octet_length" || e.name == "length" ||
          e.name == "char_length" || e.name == "character_length") {
        return {DataType::Int32(), true};
      }
      return {evaluated, true};
    default:
      return {evaluated, true};
  }
}

}  // namespace

SqlType SqlResultType(const expr::Expr& expr, const arrow::Schema& schema,
                      const arrow::DataType& evaluated) {
  SqlType out = Infer(expr, schema, evaluated);
  if (out.type.id() == TypeId::kNull) out.type = evaluated;
  return out;
}

}  // namespace quiver::query::internal

// The "trident: ..." parameters as a Markdown table, made from getValidParameters() so that the
// README cannot drift from the code: printed, checked against a file's table between the marker
// lines, or written there.
//   trident-params                 print the table
//   trident-params --check FILE    exit 1 (and say so) where FILE's table differs
//   trident-params --update FILE   replace FILE's table
#include <Teuchos_ParameterList.hpp>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "Trident_MultiplyOptions.hpp"

namespace {

const std::string kBegin = "<!-- trident-params:begin -->";
const std::string kEnd = "<!-- trident-params:end -->";

std::string cell(std::string text) {
  for (std::size_t at = 0; (at = text.find('|', at)) != std::string::npos; at += 2) text.replace(at, 1, "\\|");
  return text;
}

std::string typeName(const Teuchos::ParameterEntry& e) {
  if (e.isType<std::string>()) return "string";
  if (e.isType<int>()) return "int";
  if (e.isType<bool>()) return "bool";
  return e.getAny(false).typeName();
}

std::string defaultText(const Teuchos::ParameterEntry& e) {
  if (e.isType<std::string>()) return "`\"" + Teuchos::getValue<std::string>(e) + "\"`";
  if (e.isType<bool>()) return Teuchos::getValue<bool>(e) ? "`true`" : "`false`";
  std::ostringstream s;
  s << "`" << Teuchos::toString(e.getAny(false)) << "`";
  return s.str();
}

std::string table() {
  const auto valid = Trident::MatrixMatrix::getValidParameters();
  std::ostringstream out;
  out << "| Parameter | Type | Default | Meaning |\n|---|---|---|---|\n";
  for (auto it = valid->begin(); it != valid->end(); ++it) {
    const auto& e = valid->entry(it);
    out << "| `" << valid->name(it) << "` | " << typeName(e) << " | " << defaultText(e) << " | "
        << cell(e.docString()) << " |\n";
  }
  return out.str();
}

// The file's text with the part between the markers replaced by `body`; `found` says whether
// both markers were there.
std::string withTable(const std::string& text, const std::string& body, std::string& current, bool& found) {
  const auto b = text.find(kBegin);
  const auto e = b == std::string::npos ? b : text.find(kEnd, b);
  found = e != std::string::npos;
  if (!found) return text;
  const auto start = b + kBegin.size() + 1;
  current = text.substr(start, e - start);
  return text.substr(0, start) + body + text.substr(e);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string body = table();
  if (argc == 1) {
    std::cout << body;
    return 0;
  }
  const std::string mode = argv[1];
  if (argc != 3 || (mode != "--check" && mode != "--update")) {
    std::cerr << "usage: trident-params [--check FILE | --update FILE]\n";
    return 2;
  }
  std::ifstream in(argv[2]);
  if (!in) {
    std::cerr << "trident-params: cannot read " << argv[2] << "\n";
    return 2;
  }
  std::stringstream text;
  text << in.rdbuf();
  std::string current;
  bool found = false;
  const std::string updated = withTable(text.str(), body, current, found);
  if (!found) {
    std::cerr << "trident-params: " << argv[2] << " has no line \"" << kBegin << "\" followed by \"" << kEnd << "\"\n";
    return 1;
  }
  if (mode == "--check") {
    if (current == body) return 0;
    std::cerr << "trident-params: the parameter table in " << argv[2]
              << " differs from getValidParameters(); run: trident-params --update " << argv[2] << "\nExpected:\n"
              << body;
    return 1;
  }
  std::ofstream(argv[2]) << updated;
  return 0;
}

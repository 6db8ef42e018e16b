#include "trident/grid/TileGrid.hpp"

#include "trident/grid/Topology.hpp"

namespace Trident {

TileGrid TileGrid::forUnits(int units) {
  TileGrid g;
  nearSquare(units, g.rows, g.cols);
  g.rounds = std::lcm(g.rows, g.cols);
  return g;
}

}  // namespace Trident

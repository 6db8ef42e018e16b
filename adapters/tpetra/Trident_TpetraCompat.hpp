#pragma once
// The one place where Trident meets the differences between the Trilinos versions it builds
// against (Debian 12's 13.2, 15.x and 16.x as users build them). Each difference is tested by
// feature, not by version number, so a release in between works as long as it has one of the two
// spellings:
//   - Tpetra 13.4 renamed the per-process counts getNode* to getLocal* (Map::getNodeNumElements,
//     Map::getNodeElementList, CrsMatrix/CrsGraph::getNodeNumRows, getNodeNumEntries,
//     getNodeMaxNumRowEntries); 13.2 has only getNode*, 16 only getLocal*, the releases between
//     both (getNode* deprecated). The newer name wins wherever it exists.
//   - Tpetra 16 dropped Distributor::doPostsAndWaits on Teuchos::ArrayView buffers; the Kokkos::View
//     overload, which 13.2 has as well, remains.
// The rest of the code calls these functions, never the member names above.
#include <Kokkos_Core.hpp>
#include <Teuchos_ArrayView.hpp>
#include <algorithm>
#include <cstddef>
#include <type_traits>
#include <utility>

namespace Trident::Compat {
namespace detail {
template <class T, class = void>
struct HasLocalNames : std::false_type {};
template <class T>
struct HasLocalNames<T, std::void_t<decltype(std::declval<const T&>().getLocalNumElements())>>
    : std::true_type {};  // Tpetra::Map

template <class T, class = void>
struct HasLocalRowNames : std::false_type {};
template <class T>
struct HasLocalRowNames<T, std::void_t<decltype(std::declval<const T&>().getLocalNumRows())>>
    : std::true_type {};  // Tpetra::CrsMatrix, Tpetra::CrsGraph, Tpetra::RowMatrix

template <class T, class Distributor, class = void>
struct HasArrayViewPosts : std::false_type {};
template <class T, class Distributor>
struct HasArrayViewPosts<T, Distributor,
                         std::void_t<decltype(std::declval<Distributor&>().template doPostsAndWaits<T>(
                             std::declval<Teuchos::ArrayView<const T>>(), std::size_t{},
                             std::declval<Teuchos::ArrayView<T>>()))>> : std::true_type {};
}  // namespace detail

/// Number of global indices this process owns in `map` (a Tpetra::Map).
template <class Map>
std::size_t localNumElements(const Map& map) {
  if constexpr (detail::HasLocalNames<Map>::value) return map.getLocalNumElements();
  else return map.getNodeNumElements();
}

/// The global indices this process owns in `map`, in local-index order (Teuchos::ArrayView).
template <class Map>
auto localElementList(const Map& map) {
  if constexpr (detail::HasLocalNames<Map>::value) return map.getLocalElementList();
  else return map.getNodeElementList();
}

/// Number of rows this process owns in a Tpetra matrix or graph.
template <class M>
std::size_t localNumRows(const M& m) {
  if constexpr (detail::HasLocalRowNames<M>::value) return m.getLocalNumRows();
  else return m.getNodeNumRows();
}

/// Number of stored entries in this process's rows of a Tpetra matrix or graph.
template <class M>
std::size_t localNumEntries(const M& m) {
  if constexpr (detail::HasLocalRowNames<M>::value) return m.getLocalNumEntries();
  else return m.getNodeNumEntries();
}

/// Longest of this process's rows of a Tpetra matrix or graph.
template <class M>
std::size_t localMaxNumRowEntries(const M& m) {
  if constexpr (detail::HasLocalRowNames<M>::value) return m.getLocalMaxNumRowEntries();
  else return m.getNodeMaxNumRowEntries();
}

/// Collective over the distributor's communicator: sends `exports` (`packets` values per exported
/// ID, in the plan's export order) and receives into `imports` (sized for every import), blocking.
template <class T, class Distributor>
void postsAndWaits(Distributor& dist, const T* exports, std::size_t numExports, std::size_t packets, T* imports,
                   std::size_t numImports) {
  if constexpr (detail::HasArrayViewPosts<T, Distributor>::value) {
    dist.template doPostsAndWaits<T>(Teuchos::ArrayView<const T>(exports, numExports), packets,
                                     Teuchos::ArrayView<T>(imports, numImports));
  } else {
    // Managed views: Tpetra 16's Distributor allocates its staging buffer with the export view's
    // memory traits, which an unmanaged view cannot allocate.
    Kokkos::View<T*, Kokkos::HostSpace> send(Kokkos::view_alloc(Kokkos::WithoutInitializing, "exports"), numExports);
    Kokkos::View<T*, Kokkos::HostSpace> recv(Kokkos::view_alloc(Kokkos::WithoutInitializing, "imports"), numImports);
    std::copy(exports, exports + numExports, send.data());
    dist.doPostsAndWaits(Kokkos::View<const T*, Kokkos::HostSpace>(send), packets, recv);
    std::copy(recv.data(), recv.data() + numImports, imports);
  }
}
}  // namespace Trident::Compat

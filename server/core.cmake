# hzio_server_core: everything of the server that does not touch sockets (config, auth, metrics,
# handlers, engine, the transport-neutral request/reply), so the handler tests and the request
# parsing fuzzer (built with -DHZIO_BUILD_SERVER=OFF, no Boost) link it. Included from
# server/CMakeLists.txt and from fuzz/CMakeLists.txt.
if(TARGET hzio_server_core)
  return()
endif()
find_package(nlohmann_json 3.10 REQUIRED)
find_package(OpenSSL 3 REQUIRED)
find_package(ZLIB REQUIRED)  # streaming deflate of large zip replies (libdeflate has no stream API)
set(_hzio_server_dir ${CMAKE_CURRENT_LIST_DIR})
file(GLOB HZIO_SERVER_CORE_SOURCES CONFIGURE_DEPENDS
  ${_hzio_server_dir}/src/config/*.cpp ${_hzio_server_dir}/src/handlers/*.cpp ${_hzio_server_dir}/src/engine/*.cpp
  ${_hzio_server_dir}/src/auth/*.cpp ${_hzio_server_dir}/src/metrics/*.cpp
  ${_hzio_server_dir}/src/http/message.cpp ${_hzio_server_dir}/src/http/query_string.cpp)
add_library(hzio_server_core STATIC ${HZIO_SERVER_CORE_SOURCES})
target_include_directories(hzio_server_core PUBLIC ${_hzio_server_dir}/src ${_hzio_server_dir}/include)
target_link_libraries(hzio_server_core
  PUBLIC hzio::core nlohmann_json::nlohmann_json OpenSSL::Crypto ZLIB::ZLIB
  PRIVATE Threads::Threads)
# Where static files come from when --web-root is not given: the source tree while developing,
# the installed share/hzio/web otherwise.
target_compile_definitions(hzio_server_core PRIVATE
  HZIO_SOURCE_WEB_DIR="${PROJECT_SOURCE_DIR}/web"
  HZIO_INSTALLED_WEB_DIR="${CMAKE_INSTALL_FULL_DATADIR}/hzio/web")
if(COMMAND hzio_target_warnings)
  hzio_target_warnings(hzio_server_core)
endif()

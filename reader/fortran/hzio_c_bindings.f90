!> The C functions of hzio.h and hzio_mpi.h declared for Fortran (ISO_C_BINDING). The module
!> `hzio` (hzio.F90) wraps them in idiomatic procedures; programs use that, not this.
module hzio_c_bindings
  use, intrinsic :: iso_c_binding
  implicit none
  public

  !> What a write or read moved (hzio.h hzio_io_stats).
  type, bind(c) :: hzio_io_stats
    real(c_double) :: seconds = 0
    integer(c_int64_t) :: data_bytes = 0, file_bytes = 0, aggregators = 0
  end type

  interface
    function c_last_error() bind(c, name="hzio_last_error") result(p)
      import :: c_ptr
      type(c_ptr) :: p
    end function
    function c_status_name(s) bind(c, name="hzio_status_name") result(p)
      import :: c_ptr, c_int
      integer(c_int), value :: s
      type(c_ptr) :: p
    end function
    function c_version() bind(c, name="hzio_version") result(p)
      import :: c_ptr
      type(c_ptr) :: p
    end function
    function c_fail(s, message) bind(c, name="hzio_fail") result(r)
      import :: c_int, c_char
      integer(c_int), value :: s
      character(kind=c_char), intent(in) :: message(*)
      integer(c_int) :: r
    end function
    function c_strlen(p) bind(c, name="strlen") result(n)
      import :: c_ptr, c_size_t
      type(c_ptr), value :: p
      integer(c_size_t) :: n
    end function

    function c_desc_create(ndims, size, desc) bind(c, name="hzio_desc_create") result(s)
      import :: c_int, c_int64_t, c_ptr
      integer(c_int), value :: ndims
      integer(c_int64_t), intent(in) :: size(*)
      type(c_ptr), intent(out) :: desc
      integer(c_int) :: s
    end function
    function c_desc_free(desc) bind(c, name="hzio_desc_free") result(s)
      import :: c_int, c_ptr
      type(c_ptr), value :: desc
      integer(c_int) :: s
    end function
    function c_desc_add_field(desc, name, dtype) bind(c, name="hzio_desc_add_field") result(s)
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: desc
      character(kind=c_char), intent(in) :: name(*), dtype(*)
      integer(c_int) :: s
    end function
    function c_desc_set_timesteps(desc, first, last) bind(c, name="hzio_desc_set_timesteps") result(s)
      import :: c_int, c_ptr, c_int64_t
      type(c_ptr), value :: desc
      integer(c_int64_t), value :: first, last
      integer(c_int) :: s
    end function
    function c_desc_set_bits_per_block(desc, bits) bind(c, name="hzio_desc_set_bits_per_block") result(s)
      import :: c_int, c_ptr
      type(c_ptr), value :: desc
      integer(c_int), value :: bits
      integer(c_int) :: s
    end function
    function c_desc_set_blocks_per_file(desc, blocks) bind(c, name="hzio_desc_set_blocks_per_file") result(s)
      import :: c_int, c_ptr, c_int64_t
      type(c_ptr), value :: desc
      integer(c_int64_t), value :: blocks
      integer(c_int) :: s
    end function
    function c_desc_set_compression(desc, field, compression) bind(c, name="hzio_desc_set_compression") result(s)
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: desc, field
      character(kind=c_char), intent(in) :: compression(*)
      integer(c_int) :: s
    end function
    function c_desc_set_layout(desc, field, layout) bind(c, name="hzio_desc_set_layout") result(s)
      import :: c_int, c_ptr
      type(c_ptr), value :: desc, field
      integer(c_int), value :: layout
      integer(c_int) :: s
    end function
    function c_desc_get_dims(desc, ndims, size) bind(c, name="hzio_desc_get_dims") result(s)
      import :: c_int, c_ptr, c_int64_t
      type(c_ptr), value :: desc
      integer(c_int), intent(out) :: ndims
      integer(c_int64_t), intent(out) :: size(*)
      integer(c_int) :: s
    end function
    function c_desc_get_maxh(desc, maxh) bind(c, name="hzio_desc_get_maxh") result(s)
      import :: c_int, c_ptr
      type(c_ptr), value :: desc
      integer(c_int), intent(out) :: maxh
      integer(c_int) :: s
    end function
    function c_desc_get_num_fields(desc, count) bind(c, name="hzio_desc_get_num_fields") result(s)
      import :: c_int, c_ptr
      type(c_ptr), value :: desc
      integer(c_int), intent(out) :: count
      integer(c_int) :: s
    end function
    function c_desc_get_field(desc, index, name, dtype, components, sample_bytes) &
        bind(c, name="hzio_desc_get_field") result(s)
      import :: c_int, c_ptr, c_int64_t
      type(c_ptr), value :: desc
      integer(c_int), value :: index
      type(c_ptr), intent(out) :: name, dtype
      integer(c_int), intent(out) :: components
      integer(c_int64_t), intent(out) :: sample_bytes
      integer(c_int) :: s
    end function
    function c_desc_get_field_compression(desc, index, compression) &
        bind(c, name="hzio_desc_get_field_compression") result(s)
      import :: c_int, c_ptr
      type(c_ptr), value :: desc
      integer(c_int), value :: index
      type(c_ptr), intent(out) :: compression
      integer(c_int) :: s
    end function
    function c_desc_get_timesteps(desc, capacity, times, count) bind(c, name="hzio_desc_get_timesteps") result(s)
      import :: c_int, c_ptr, c_int64_t
      type(c_ptr), value :: desc
      integer(c_int64_t), value :: capacity
      integer(c_int64_t), intent(out) :: times(*)
      integer(c_int64_t), intent(out) :: count
      integer(c_int) :: s
    end function

    function c_writer_create(path, desc, flags, writer) bind(c, name="hzio_writer_create") result(s)
      import :: c_int, c_ptr, c_char
      character(kind=c_char), intent(in) :: path(*)
      type(c_ptr), value :: desc
      integer(c_int), value :: flags
      type(c_ptr), intent(out) :: writer
      integer(c_int) :: s
    end function
    function c_writer_create_mpi_f(comm, path, desc, flags, writer) bind(c, name="hzio_writer_create_mpi_f") result(s)
      import :: c_int, c_ptr, c_char
      integer(c_int), value :: comm
      character(kind=c_char), intent(in) :: path(*)
      type(c_ptr), value :: desc
      integer(c_int), value :: flags
      type(c_ptr), intent(out) :: writer
      integer(c_int) :: s
    end function
    function c_writer_free(writer) bind(c, name="hzio_writer_free") result(s)
      import :: c_int, c_ptr
      type(c_ptr), value :: writer
      integer(c_int) :: s
    end function
    function c_writer_add(writer, field, time, offset, count, data) bind(c, name="hzio_writer_add") result(s)
      import :: c_int, c_ptr, c_char, c_int64_t
      type(c_ptr), value :: writer
      character(kind=c_char), intent(in) :: field(*)
      integer(c_int64_t), value :: time
      integer(c_int64_t), intent(in) :: offset(*), count(*)
      type(c_ptr), value :: data
      integer(c_int) :: s
    end function
    function c_writer_add_array(writer, field, time, offset, rank, shape, element_bytes, data) &
        bind(c, name="hzio_writer_add_array") result(s)
      import :: c_int, c_ptr, c_char, c_int64_t
      type(c_ptr), value :: writer
      character(kind=c_char), intent(in) :: field(*)
      integer(c_int64_t), value :: time
      integer(c_int64_t), intent(in) :: offset(*)
      integer(c_int), value :: rank
      integer(c_int64_t), intent(in) :: shape(*)
      integer(c_int), value :: element_bytes
      type(c_ptr), value :: data
      integer(c_int) :: s
    end function
    function c_writer_write(writer) bind(c, name="hzio_writer_write") result(s)
      import :: c_int, c_ptr
      type(c_ptr), value :: writer
      integer(c_int) :: s
    end function
    function c_writer_get_desc(writer, desc) bind(c, name="hzio_writer_get_desc") result(s)
      import :: c_int, c_ptr
      type(c_ptr), value :: writer
      type(c_ptr), intent(out) :: desc
      integer(c_int) :: s
    end function
    function c_writer_get_stats(writer, stats) bind(c, name="hzio_writer_get_stats") result(s)
      import :: c_int, c_ptr, hzio_io_stats
      type(c_ptr), value :: writer
      type(hzio_io_stats), intent(out) :: stats
      integer(c_int) :: s
    end function

    function c_reader_open(path, flags, reader) bind(c, name="hzio_reader_open") result(s)
      import :: c_int, c_ptr, c_char
      character(kind=c_char), intent(in) :: path(*)
      integer(c_int), value :: flags
      type(c_ptr), intent(out) :: reader
      integer(c_int) :: s
    end function
    function c_writer_create_mpi_info_f(comm, path, desc, flags, info, writer) &
        bind(c, name="hzio_writer_create_mpi_info_f") result(s)
      import :: c_int, c_ptr, c_char
      integer(c_int), value :: comm
      character(kind=c_char), intent(in) :: path(*)
      type(c_ptr), value :: desc
      integer(c_int), value :: flags, info
      type(c_ptr), intent(out) :: writer
      integer(c_int) :: s
    end function
    function c_reader_open_mpi_info_f(comm, path, flags, info, reader) bind(c, name="hzio_reader_open_mpi_info_f") &
        result(s)
      import :: c_int, c_ptr, c_char
      integer(c_int), value :: comm
      character(kind=c_char), intent(in) :: path(*)
      integer(c_int), value :: flags, info
      type(c_ptr), intent(out) :: reader
      integer(c_int) :: s
    end function
    function c_reader_open_mpi_f(comm, path, flags, reader) bind(c, name="hzio_reader_open_mpi_f") result(s)
      import :: c_int, c_ptr, c_char
      integer(c_int), value :: comm
      character(kind=c_char), intent(in) :: path(*)
      integer(c_int), value :: flags
      type(c_ptr), intent(out) :: reader
      integer(c_int) :: s
    end function
    function c_reader_free(reader) bind(c, name="hzio_reader_free") result(s)
      import :: c_int, c_ptr
      type(c_ptr), value :: reader
      integer(c_int) :: s
    end function
    function c_reader_get_desc(reader, desc) bind(c, name="hzio_reader_get_desc") result(s)
      import :: c_int, c_ptr
      type(c_ptr), value :: reader
      type(c_ptr), intent(out) :: desc
      integer(c_int) :: s
    end function
    function c_reader_query_grid(reader, offset, count, level, origin, stride, grid_count) &
        bind(c, name="hzio_reader_query_grid") result(s)
      import :: c_int, c_ptr, c_int64_t
      type(c_ptr), value :: reader
      integer(c_int64_t), intent(in) :: offset(*), count(*)
      integer(c_int), value :: level
      integer(c_int64_t), intent(out) :: origin(*), stride(*), grid_count(*)
      integer(c_int) :: s
    end function
    function c_reader_read(reader, field, time, level, nboxes, offsets, counts, out) &
        bind(c, name="hzio_reader_read") result(s)
      import :: c_int, c_ptr, c_char, c_int64_t
      type(c_ptr), value :: reader
      character(kind=c_char), intent(in) :: field(*)
      integer(c_int64_t), value :: time
      integer(c_int), value :: level
      integer(c_int64_t), value :: nboxes
      integer(c_int64_t), intent(in) :: offsets(*), counts(*)
      type(c_ptr), intent(in) :: out(*)
      integer(c_int) :: s
    end function
    function c_reader_read_array(reader, field, time, level, offset, count, elements, element_bytes, data) &
        bind(c, name="hzio_reader_read_array") result(s)
      import :: c_int, c_ptr, c_char, c_int64_t
      type(c_ptr), value :: reader
      character(kind=c_char), intent(in) :: field(*)
      integer(c_int64_t), value :: time
      integer(c_int), value :: level
      integer(c_int64_t), intent(in) :: offset(*), count(*)
      integer(c_int64_t), value :: elements
      integer(c_int), value :: element_bytes
      type(c_ptr), value :: data
      integer(c_int) :: s
    end function
    function c_reader_get_stats(reader, stats) bind(c, name="hzio_reader_get_stats") result(s)
      import :: c_int, c_ptr, hzio_io_stats
      type(c_ptr), value :: reader
      type(hzio_io_stats), intent(out) :: stats
      integer(c_int) :: s
    end function
  end interface

end module hzio_c_bindings

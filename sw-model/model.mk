# The reference model: build/lib/libincmodel.a (and an ASan/UBSan twin for
# the tests). Freestanding sources: see sw-model/README.md.

MODEL_SRCS := $(wildcard sw-model/src/*.c)
MODEL_HDRS := $(wildcard sw-model/include/*.h)
MODEL_OBJS := $(MODEL_SRCS:sw-model/src/%.c=$(OBJ)/model/%.o)
MODEL_SAN_OBJS := $(MODEL_SRCS:sw-model/src/%.c=$(OBJ)/model-san/%.o)
# The model must build with no hosted libc: check it with -ffreestanding.
MODEL_CFLAGS = $(ALL_CFLAGS) -ffreestanding -fPIC

$(OBJ)/model/%.o: sw-model/src/%.c $(MODEL_HDRS)
	@mkdir -p $(@D)
	$(CC) $(MODEL_CFLAGS) -c $< -o $@

$(OBJ)/model-san/%.o: sw-model/src/%.c $(MODEL_HDRS)
	@mkdir -p $(@D)
	$(CC) $(MODEL_CFLAGS) $(SAN_FLAGS) -c $< -o $@

$(LIB)/libincmodel.a: $(MODEL_OBJS)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

$(LIB)/libincmodel-san.a: $(MODEL_SAN_OBJS)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

ALL_TARGETS += $(LIB)/libincmodel.a

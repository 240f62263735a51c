# SPDX-License-Identifier: MIT
"""Where libinceptionn.so was installed. In the source tree None (the
package then looks in ../build/lib); `make install` writes the path."""
LIBRARY = None

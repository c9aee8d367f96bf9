/** The IVM model shared by the rules and the JDBC driver. */
package org.calciteivm.core;
